import ContinuedProcessing
import Foundation
import Synchronization

/// The first stop signal caught while a job waits for another process's lock (0: none yet).
/// A global: a signal handler captures nothing. An atomic store is async-signal-safe.
private let caughtWhileWaiting = Atomic<Int32>(0)

/// The stop signals — SIGINT, SIGTERM, and SIGHUP unless it was ignored (`nohup`) — caught while a
/// job waits for another process's lock on its folder, before its lifecycle (``ProcessLifecycle``)
/// takes them over: the wait ends with the stream's `end` and exit 75, not a process killed with no
/// `end` (a second `--strategy queue` job died at once on SIGTERM, exit 143).
///
/// A plain `sigaction` handler, in place when this returns (a dispatch source is registered
/// asynchronously; with one, made after the job said it waits, the test's SIGTERM sent on reading
/// that was lost and the job waited on).
struct WaitSignals {
    private let numbers: [Int32]
    /// The actions they had before, put back by ``stop()``.
    private let previous: [sigaction]

    /// Catches the signals from now until ``stop()``.
    init() {
        numbers = [SIGINT, SIGTERM] + (ProcessLifecycle.isIgnored(SIGHUP) ? [] : [SIGHUP])
        caughtWhileWaiting.store(0, ordering: .relaxed)
        previous = numbers.map { number in
            var action = sigaction()
            sigaction(number, nil, &action)
            return action
        }
        for number in numbers {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                _ = caughtWhileWaiting.compareExchange(expected: 0, desired: number, ordering: .relaxed)
            }
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
    }

    /// The first stop signal caught, if any.
    var caughtSignal: Int32? {
        let number = caughtWhileWaiting.load(ordering: .relaxed)
        return number == 0 ? nil : number
    }

    /// Gives the signals back the actions they had (a SIGINT a script's `&` left ignored stays so until the
    /// lifecycle takes it over; set to the default, one in between ended the job with no `end`).
    func stop() {
        for (number, action) in zip(numbers, previous) {
            var action = action
            sigaction(number, &action, nil)
        }
    }
}
