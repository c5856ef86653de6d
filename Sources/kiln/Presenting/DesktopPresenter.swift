import ContinuedProcessing
import Dispatch
import Foundation
import Locking

/// The job as one freedesktop notification (`org.freedesktop.Notifications` on the
/// session bus), replaced in place at most once a second: the title, then the
/// subtitle, the counts and the time left, with the `value` hint (0–100, never
/// decreasing) and a Cancel action; at the end, a last notification with the
/// counts and how the job ended.
///
/// A thread of its own owns the bus connection: it connects, listens for the
/// Cancel action, and sends what ``present(_:)`` noted. When the bus or the server
/// cannot be used (said once through `warn` with `--notify desktop`, silent with
/// `auto`), or goes away mid-job (said once), the job goes on exactly as without it.
final class DesktopPresenter: TaskPresenter {
    private struct Shared {
        var actions: TaskActions?
        var latest: TaskPresentation?
        var waitedForEnd = false
    }

    private let shared = Locked(Shared())
    // Signalled once, when the thread ends; only the final present waits on it, for a bounded time.
    private let finished = DispatchSemaphore(value: 0)
    private let warn: @Sendable (String) -> Void
    /// The shortest time between two notifications of progress.
    static let interval = Duration.seconds(1)

    /// Starts the thread. `warnIfUnreachable`: a bus or server that cannot be reached at the start is
    /// worth a warning (`--notify desktop`); with `auto` it is not, and nothing is shown.
    /// `environment` names the library (``DBusSession/init(environment:)``).
    init(warnIfUnreachable: Bool, environment: [String: String], warn: @escaping @Sendable (String) -> Void) {
        self.warn = warn
        Thread.detachNewThread { [self] in
            defer { finished.signal() }
            do {
                let session = try DBusSession(environment: environment)
                try run(session)
            } catch let failure as Failure {
                // Nothing shown yet: the bus or the server was never there. Else it went away.
                if failure.shown {
                    warn("desktop notifications stopped: \(failure.cause); the job goes on")
                } else if warnIfUnreachable {
                    warn("no desktop notifications: \(failure.cause)")
                }
            } catch {
                if warnIfUnreachable { warn("no desktop notifications: \(error)") }
            }
        }
    }

    func attach(_ actions: TaskActions) {
        shared.withLock { $0.actions = actions }
    }

    /// Notes the presentation for the thread; for the final one, waits until it is shown
    /// (or given up: a server that does not answer within its reply timeout).
    func present(_ presentation: TaskPresentation) {
        let waits = shared.withLock { shared in
            shared.latest = presentation
            guard presentation.hasEnded, !shared.waitedForEnd else { return false }
            shared.waitedForEnd = true
            return true
        }
        if waits { _ = finished.wait(timeout: .now() + .seconds(5)) }
    }

    /// Why the thread stopped: `cause`, after a notification was shown or before any was.
    private struct Failure: Error {
        var cause: DBusSession.Failure
        var shown: Bool
    }

    /// Shows the presentations until the final one; throws when the bus or the server fails.
    private func run(_ session: borrowing DBusSession) throws(Failure) {
        var id: UInt32 = 0
        var shown: Content?
        var shownAt: ContinuousClock.Instant?
        var value: Int32 = 0
        do throws(DBusSession.Failure) {
            while true {
                while let action = try session.nextAction(waiting: 100) {
                    if id != 0, action.id == id, action.key == "cancel" { shared.withLock { $0.actions }?.cancel() }
                }
                guard let latest = shared.withLock({ $0.latest }) else { continue }
                // Never decreasing, whatever a resumed or stopping job's fraction does.
                value = max(value, Int32(min(100, max(0, (latest.fractionCompleted * 100).rounded(.down)))))
                let content = Content(latest, value: value)
                if latest.hasEnded {
                    id = try session.notify(replacing: id, summary: content.summary, body: content.body, value: value,
                                            cancelAction: false, expireTimeout: -1)
                    return
                }
                guard content != shown, shownAt.map({ ContinuousClock.now - $0 >= Self.interval }) ?? true else { continue }
                id = try session.notify(replacing: id, summary: content.summary, body: content.body, value: value,
                                        cancelAction: true, expireTimeout: 0)
                shown = content
                shownAt = .now
            }
        } catch {
            throw Failure(cause: error, shown: id != 0)
        }
    }

    /// What one notification says.
    private struct Content: Equatable {
        var summary: String
        var body: String

        init(_ p: TaskPresentation, value: Int32) {
            summary = p.title
            let failed = p.failedUnits > 0 ? " · \(p.failedUnits) failed" : ""
            let counts = "\(p.completedUnits) of \(p.totalUnits) images" + failed
            switch p.state {
            case .queued(let position):
                body = "\(p.subtitle)\nqueued at position \(position), waiting for another kiln job"
            case .running:
                let eta = p.estimatedRemaining.map { " · ETA \($0.clock)" } ?? ""
                body = "\(p.subtitle)\n\(value)% · \(counts)\(eta)"
            case .stopping:
                body = "\(p.subtitle)\nstopping: finishing the images in flight · \(counts)"
            case .ended(let success):
                summary = p.title + (success ? " — done" : " — ended")
                body = p.statusLine ?? counts
            }
        }
    }
}
