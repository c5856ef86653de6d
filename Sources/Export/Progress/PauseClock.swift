import Locking

/// The time a job spends paused — held from a desktop view (a KDE job view's Pause) or its process stopped by
/// Ctrl-Z (SIGTSTP; a plain SIGSTOP, which no handler sees, is not counted) — which its rates and time estimates
/// leave out: counted as slow work, a 3 s pause took the
/// ETA from 11 s to 35 s and the throughput from 7.5 to 2.3 MPix/s, for about 10 s after the resume.
/// The two causes may overlap; the job is paused while either holds.
public final class PauseClock: Sendable {
    /// Why a job is paused.
    public enum Cause: Sendable {
        /// A person paused it from a view outside the terminal.
        case view
        /// Its process was stopped by SIGTSTP and has not been continued yet.
        case process
    }

    private struct State {
        var causes: Set<Cause> = []
        var since: ContinuousClock.Instant?
        var total: Duration = .zero
    }

    private let state = Locked(State())

    /// A clock that has counted no pause.
    public init() {}

    /// Notes that `cause` holds the job (`true`) or no longer does (`false`). Safe from any thread, any number
    /// of times: a pause begins with the first cause and ends with the last.
    public func set(_ cause: Cause, paused: Bool) {
        let now = ContinuousClock.now
        state.withLock { state in
            let was = !state.causes.isEmpty
            if paused { state.causes.insert(cause) } else { state.causes.remove(cause) }
            if !was && !state.causes.isEmpty { state.since = now }
            if was && state.causes.isEmpty, let since = state.since {
                state.total += now - since
                state.since = nil
            }
        }
    }

    /// Whether the job is paused now.
    public var isPaused: Bool { state.withLock { !$0.causes.isEmpty } }

    /// Every pause so far, the one under way included.
    public var paused: Duration {
        let now = ContinuousClock.now
        return state.withLock { state in state.total + (state.since.map { now - $0 } ?? .zero) }
    }
}
