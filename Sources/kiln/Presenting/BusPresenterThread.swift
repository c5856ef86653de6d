import ContinuedProcessing
import Dispatch
import Foundation
import Locking

/// The thread of its own that a presenter on the session bus talks to the bus from, and what the
/// presenter shares with it: the latest presentation and the person's actions, noted by ``present(_:)``
/// and ``attach(_:)``. The final presentation waits (at most 5 s) until the thread has shown it.
///
/// The thread connects (``DBusSession``), runs the presenter's loop until the end, and says once through
/// `warn` why it stopped: the bus or the server could not be used (only with `warnIfUnreachable`:
/// `--notify desktop`; silent with `auto`), or went away after something was shown. Either way the job
/// goes on exactly as without it.
final class BusPresenterThread: Sendable {
    /// Why a loop stopped: `cause`, after something was shown or before anything was.
    struct Failure: Error {
        var cause: DBusSession.Failure
        var shown: Bool
    }

    private struct Shared {
        var actions: TaskActions?
        var latest: TaskPresentation?
        var waitedForEnd = false
        var shown = false
    }

    private let shared = Locked(Shared())
    // Signalled once, when the thread ends; only the final present waits on it, for a bounded time.
    private let finished = DispatchSemaphore(value: 0)
    /// What is shown in warnings ("desktop notifications"), and where they go; whether a view that could not
    /// be reached is worth one.
    private let view: String
    private let warn: @Sendable (String) -> Void
    private let warnIfUnreachable: Bool

    /// Starts the thread, which connects to the bus `environment` names and runs `loop` with the connection.
    /// `view` names what is shown in warnings ("desktop notifications").
    init(view: String, warnIfUnreachable: Bool, environment: [String: String], warn: @escaping @Sendable (String) -> Void,
         loop: @escaping @Sendable (borrowing DBusSession, BusPresenterThread) throws(Failure) -> Void) {
        self.view = view
        self.warn = warn
        self.warnIfUnreachable = warnIfUnreachable
        Thread.detachNewThread { [self] in
            defer { finished.signal() }
            do {
                let session = try DBusSession(environment: environment)
                try loop(session, self)
            } catch let failure as Failure {
                // Nothing shown yet: the bus or the server was never there. Else it went away.
                if failure.shown {
                    warn("\(view) stopped: \(failure.cause); the job goes on")
                } else if warnIfUnreachable {
                    warn("no \(view): \(failure.cause)")
                }
            } catch {
                if warnIfUnreachable { warn("no \(view): \(error)") }
            }
        }
    }

    /// What the person can do from the view, once attached.
    var actions: TaskActions? { shared.withLock { $0.actions } }

    /// The latest presentation noted, if any.
    var latest: TaskPresentation? { shared.withLock { $0.latest } }

    /// Notes that the server answered a call that shows the job: a view of it exists.
    func noteShown() {
        shared.withLock { $0.shown = true }
    }

    /// Notes what the person can do from the view.
    func attach(_ actions: TaskActions) {
        shared.withLock { $0.actions = actions }
    }

    /// Notes the presentation for the thread; for the final one, waits until it is shown, at most 5 s. A server
    /// that has not answered by then is said, once, where a view was shown or one was asked for (`--notify desktop`;
    /// under `auto` a server that never showed anything stays unsaid, as one that is not there): the job ends
    /// without its last word, and what the server shows later may stay.
    func present(_ presentation: TaskPresentation) {
        let waits = shared.withLock { shared in
            shared.latest = presentation
            guard presentation.hasEnded, !shared.waitedForEnd else { return false }
            shared.waitedForEnd = true
            return true
        }
        if waits, finished.wait(timeout: .now() + .seconds(5)) == .timedOut, warnIfUnreachable || shared.withLock(\.shown) {
            warn("\(view): the server had not answered within 5 s of the job's end; what it shows now may stay")
        }
    }
}
