import ContinuedProcessing
import Foundation
import Synchronization

/// The first stop signal caught before the job's lifecycle took the signals over (0: none yet).
/// A global: a signal handler captures nothing. An atomic store is async-signal-safe.
private let caughtAtStart = Atomic<Int32>(0)

/// The stop signals — SIGINT, SIGTERM, and SIGHUP unless it was ignored (`nohup`) — from the start of an export or a
/// resume (its command line parsed) until its lifecycle (``ProcessLifecycle``) takes them over: the first is recorded,
/// and the job acts on it where it looks (``JobRunner``): before anything is written (the inputs scanned, device
/// discovery, a wait for another job's lock), it ends with its stream's `stopping` and `end`, exit 75; once its journal
/// is started, the lifecycle takes it as its first (``handOver()``). Before (2026-11-28), only the waits for discovery
/// and for a lock caught them: a Ctrl-C or SIGTERM while 20,000 inputs were scanned, or between the journal's start and
/// the lifecycle's, killed kiln outright (exit 130 or 143, no `end`; 40 of 40 SIGTERMs sent as the output folder
/// appeared).
///
/// A plain `sigaction` handler, in place when ``begin()`` returns (a dispatch source is registered asynchronously;
/// with one, made after the job said it waits, the test's SIGTERM sent on reading that was lost and the job waited on).
/// It stays until the lifecycle puts its own in its place.
enum StartSignals {
    /// Catches the signals from now on. Called once, first thing.
    static func begin() {
        let numbers = [SIGINT, SIGTERM] + (ProcessLifecycle.isIgnored(SIGHUP) ? [] : [SIGHUP])
        for number in numbers {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                _ = caughtAtStart.compareExchange(expected: 0, desired: number, ordering: .relaxed)
            }
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
    }

    /// The first stop signal caught, if any.
    static var caught: Int32? {
        let number = caughtAtStart.load(ordering: .relaxed)
        return number == 0 ? nil : number
    }

    /// Gives the signal caught so far, if any, to the lifecycle, whose handlers stand now: sent again.
    static func handOver() {
        if let number = caught { kill(getpid(), number) }
    }
}
