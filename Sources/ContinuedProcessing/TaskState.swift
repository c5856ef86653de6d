/// The mutable state of one started task, kept behind the task's lock.
///
/// A task is `running` until it expires or ends. Once `expiring`, it has a grace
/// period to report completion; the grace clock stands still while a critical
/// section is open, but the whole wait never exceeds the larger of the grace and the
/// critical budget, counted from the expiration.
struct TaskState {
    enum Phase: Equatable {
        case running
        case expiring
        case ended
    }

    typealias Instant = ContinuousClock.Instant

    var phase = Phase.running
    var title: String
    var subtitle: String
    var expirationHandler: (@Sendable () -> Void)?
    var expirationHandlerCalled = false
    var expirationReason: ExpirationReason?
    var completionReported = false
    /// Names of the open critical sections, innermost last.
    var openCritical: [String] = []
    var expiredAt: Instant?
    /// When the grace runs out if no critical section is open from now on.
    var graceDeadline: Instant?
    /// When the wait ends even with a critical section open.
    var hardDeadline: Instant?
    /// Since when the grace clock stands still (a critical section is open after expiration).
    var pausedSince: Instant?

    init(title: String, subtitle: String) {
        self.title = title
        self.subtitle = subtitle
    }

    /// Moves to `expiring`; returns the handler to call, if it has not been called yet.
    mutating func expire(
        _ reason: ExpirationReason, at now: Instant, grace: Duration, criticalBudget: Duration
    ) -> (@Sendable () -> Void)? {
        phase = .expiring
        expirationReason = reason
        expiredAt = now
        graceDeadline = now + grace
        hardDeadline = now + max(grace, criticalBudget)
        if !openCritical.isEmpty { pausedSince = now }
        return takeExpirationHandler()
    }

    /// The handler to call now, marking it called: each task calls it at most once.
    mutating func takeExpirationHandler() -> (@Sendable () -> Void)? {
        guard !expirationHandlerCalled, let handler = expirationHandler else { return nil }
        expirationHandlerCalled = true
        return handler
    }

    mutating func beginCritical(_ name: String, at now: Instant) {
        if openCritical.isEmpty, phase == .expiring { pausedSince = now }
        openCritical.append(name)
    }

    mutating func endCritical(_ name: String, at now: Instant) {
        if let index = openCritical.lastIndex(of: name) { openCritical.remove(at: index) }
        guard openCritical.isEmpty, let since = pausedSince, let deadline = graceDeadline else { return }
        graceDeadline = deadline + (now - since)
        pausedSince = nil
    }

    /// Whether an expiring task has used up its grace (and critical extension).
    func graceExhausted(at now: Instant) -> Bool {
        guard phase == .expiring, let hard = hardDeadline, let grace = graceDeadline else { return false }
        if now >= hard { return true }
        return openCritical.isEmpty && now >= grace
    }

    func criticalTimeRemaining(at now: Instant, budget: Duration) -> Duration {
        guard let expiredAt else { return budget }
        return max(.zero, budget - (now - expiredAt))
    }

    /// Shifts every deadline by `gap`: time the whole process was stopped does not count.
    mutating func postpone(by gap: Duration) {
        expiredAt = expiredAt.map { $0 + gap }
        graceDeadline = graceDeadline.map { $0 + gap }
        hardDeadline = hardDeadline.map { $0 + gap }
        pausedSince = pausedSince.map { $0 + gap }
    }
}
