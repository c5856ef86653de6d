import ContinuedProcessing
import Glibc
import Locking

/// The job as systemd sees a `Type=notify` service (`NOTIFY_SOCKET`): `READY=1`
/// once the plan is made (when attached), `STATUS=` with the bar's one-line text
/// at most once a second, `STOPPING=1` with `EXTEND_TIMEOUT_USEC=` covering the
/// grace when the job is asked to stop, and — under `WatchdogSec=`
/// (`WATCHDOG_USEC`) — `WATCHDOG=1` only when progress moved since the last one,
/// so that a stalled job is caught by the service manager too.
final class SystemdPresenter: TaskPresenter {
    private struct State {
        var statusAt: ContinuousClock.Instant?
        var pingAt: ContinuousClock.Instant?
        var progressAtPing: (Double, Int)?
        var stopping = false
        /// The state the last `STATUS=` showed: a new one (another queue position) is sent at once.
        var shownState: String?
    }

    private let socket: NotifySocket
    private let state = Locked(State())
    private let stopBudget: Duration
    private let watchdogInterval: Duration?
    /// The shortest time between two `STATUS=` lines.
    static let interval = Duration.seconds(1)

    /// The presenter for the socket `environment` names; nil without one. `stopBudget`: how long a stopping
    /// job may take (the grace, and the critical work after it), announced with `STOPPING=1`.
    init?(environment: [String: String], stopBudget: Duration) {
        guard let socket = NotifySocket(environment: environment) else { return nil }
        self.socket = socket
        self.stopBudget = stopBudget
        // Pinged at half the watchdog's interval, as sd_watchdog_enabled(3) advises; only for this process.
        let forUs = environment["WATCHDOG_PID"].map { $0 == String(getpid()) } ?? true
        watchdogInterval = environment["WATCHDOG_USEC"].flatMap(Int64.init).flatMap { usec in
            forUs && usec > 0 ? .microseconds(usec / 2) : nil
        }
    }

    func attach(_ actions: TaskActions) {
        // systemd stops the service with SIGTERM, which kiln already maps onto the task: nothing to hold.
        socket.send("READY=1")
    }

    func present(_ presentation: TaskPresentation) {
        let now = ContinuousClock.now
        state.withLock { s in
            var lines: [String] = []
            if case .stopping = presentation.state, !s.stopping {
                s.stopping = true
                let usec = stopBudget.components.seconds * 1_000_000 + stopBudget.components.attoseconds / 1_000_000_000_000
                lines += ["STOPPING=1", "EXTEND_TIMEOUT_USEC=\(usec)"]
            }
            // Progress at most once a second; a change of state at once, or while queued (no progress
            // comes then) the last position would wait for the start (it said position 2 for 4 s at 1).
            let shownState = "\(presentation.state)"
            if s.statusAt.map({ now - $0 >= Self.interval }) ?? true || !lines.isEmpty || presentation.hasEnded
                || shownState != s.shownState {
                lines.append("STATUS=" + Self.status(presentation))
                s.statusAt = now
                s.shownState = shownState
            }
            let progress = (presentation.fractionCompleted, presentation.completedUnits)
            if let watchdogInterval, s.pingAt.map({ now - $0 >= watchdogInterval }) ?? true,
               s.progressAtPing.map({ $0 != progress }) ?? true {
                lines.append("WATCHDOG=1")
                s.pingAt = now
                s.progressAtPing = progress
            }
            if !lines.isEmpty { socket.send(lines.joined(separator: "\n")) }
        }
    }

    /// The line `systemctl status` shows.
    private static func status(_ p: TaskPresentation) -> String {
        let line = p.statusLine.map { " — " + $0 } ?? ""
        switch p.state {
        case .queued(let position): return "\(p.title) — queued at position \(position)"
        case .running: return p.title + line
        case .stopping: return "\(p.title) — stopping" + line
        case .ended: return p.title + line
        }
    }
}
