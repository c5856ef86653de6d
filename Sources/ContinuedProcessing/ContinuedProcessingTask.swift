import Foundation

/// A started task: the analog of `BGContinuedProcessingTask`.
///
/// The scheduler passes one to the launch handler. The handler does the work, reports
/// it through ``progress``, stops quickly when ``expirationHandler`` is called, and calls
/// ``setTaskCompleted(success:)`` exactly once. All members are safe to use from any thread.
// Unchecked: NSObject subclasses cannot be checked; every mutable member is behind `state` (a Locked), `progress` is only updated under it.
public final class ContinuedProcessingTask: NSObject, ProgressReporting, @unchecked Sendable {
    /// The identifier of the request that started the task.
    public let identifier: String

    /// The task's progress. Update it from one place at a time (Foundation's `Progress`
    /// has no locking on Linux); the scheduler polls it. Cancelling it expires the task
    /// as ``ExpirationReason/userCancelled``.
    public let progress: Progress

    /// The resources the request required.
    public let requiredResources: ContinuedProcessingTaskRequest.Resources

    private let environment: TaskEnvironment
    private let state: Locked<TaskState>

    init(request: ContinuedProcessingTaskRequest, environment: TaskEnvironment) {
        identifier = request.identifier
        requiredResources = request.requiredResources
        self.environment = environment
        state = Locked(TaskState(title: request.title, subtitle: request.subtitle))
        progress = Progress(parent: nil, userInfo: nil)
        super.init()
        progress.isCancellable = true
        progress.cancellationHandler = { [weak self] in
            self?.expire(.userCancelled)
        }
    }

    /// The localized title, as last set by the request or ``updateTitle(_:subtitle:)``.
    public var title: String { state.withLock { $0.title } }

    /// The localized subtitle, as last set by the request or ``updateTitle(_:subtitle:)``.
    public var subtitle: String { state.withLock { $0.subtitle } }

    /// Called once when the scheduler ends the task early; stop quickly, keep what is done.
    ///
    /// Set it early in the launch handler. If the task already expired when it is set, the
    /// new handler is called at once, so a task never misses its expiration. It runs on
    /// whichever thread expires the task: keep it short, and only signal the work to stop.
    public var expirationHandler: (@Sendable () -> Void)? {
        get { state.withLock { $0.expirationHandler } }
        set {
            let late = state.withLock { state -> (@Sendable () -> Void)? in
                state.expirationHandler = newValue
                return state.phase == .expiring ? state.takeExpirationHandler() : nil
            }
            late?()
        }
    }

    /// Why the task is expiring, or `nil` while it runs normally.
    public var expirationReason: ExpirationReason? { state.withLock { $0.expirationReason } }

    /// Changes the title and subtitle shown to a person; observers receive `.titleChanged`.
    public func updateTitle(_ title: String, subtitle: String) {
        state.withLock { state in
            guard state.phase != .ended else { return }
            state.title = title
            state.subtitle = subtitle
            environment.hub.emit(.titleChanged(identifier: identifier, title: title, subtitle: subtitle))
        }
    }

    /// Reports that the task finished; call it exactly once. A second call is ignored and logged.
    public func setTaskCompleted(success: Bool) {
        let ended = state.withLock { state -> Bool in
            guard !state.completionReported else {
                environment.log("\(identifier): setTaskCompleted called again; ignored")
                return false
            }
            state.completionReported = true
            guard state.phase != .ended else {
                environment.log("\(identifier): setTaskCompleted after the task was failed; ignored")
                return false
            }
            state.phase = .ended
            environment.hub.emit(.completed(identifier: identifier, success: success))
            return true
        }
        if ended { environment.onEnd() }
    }

    /// Runs `body` as work that must finish before the task stops, such as renaming an
    /// output into place and recording it in a journal (the `beginBackgroundTask` analog).
    ///
    /// While a critical section is open, the expiration grace does not run out, up to the
    /// critical budget (see ``criticalTimeRemaining``).
    public func withCriticalWork<T>(_ name: String, _ body: () async throws -> T) async rethrows -> T {
        state.withLock { $0.beginCritical(name, at: .now) }
        defer { state.withLock { $0.endCritical(name, at: .now) } }
        return try await body()
    }

    /// The synchronous form of `withCriticalWork`, for work on
    /// threads outside Swift concurrency (e.g. an export's worker threads writing outputs).
    public func withCriticalWork<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
        state.withLock { $0.beginCritical(name, at: .now) }
        defer { state.withLock { $0.endCritical(name, at: .now) } }
        return try body()
    }

    /// The critical budget left: the full budget before any expiration, then counting down
    /// from the expiration (the `backgroundTimeRemaining` analog).
    public var criticalTimeRemaining: Duration {
        state.withLock { $0.criticalTimeRemaining(at: .now, budget: environment.criticalBudget) }
    }

    // MARK: - Scheduler side

    var phase: TaskState.Phase { state.withLock { $0.phase } }

    /// Expires a running task: emits `.expiring` and calls the expiration handler once.
    /// Returns false when the task was not running.
    @discardableResult
    func expire(_ reason: ExpirationReason) -> Bool {
        var handler: (@Sendable () -> Void)?
        let expired = state.withLock { state -> Bool in
            guard state.phase == .running else { return false }
            handler = state.expire(
                reason, at: .now, grace: environment.expirationGrace, criticalBudget: environment.criticalBudget)
            environment.hub.emit(.expiring(identifier: identifier, reason: reason))
            return true
        }
        // Outside the lock: the handler may call back into the task.
        handler?()
        return expired
    }

    /// Emits `.slowProgress` if the task still runs normally.
    func reportSlowProgress() -> Bool {
        state.withLock { state in
            guard state.phase == .running else { return false }
            environment.hub.emit(.slowProgress(identifier: identifier))
            return true
        }
    }

    /// Called when the launch handler returns: a task that did not report completion fails.
    func handlerReturned() {
        fail { $0.phase != .ended ? "the launch handler returned without calling setTaskCompleted" : nil }
    }

    /// Fails an expiring task whose grace ran out. Returns whether it did.
    func failIfGraceExhausted(at now: ContinuousClock.Instant) -> Bool {
        fail { state in
            guard state.graceExhausted(at: now) else { return nil }
            let open = state.openCritical.isEmpty ? "" : " (critical work still open: \(state.openCritical.joined(separator: ", ")))"
            return "the task did not call setTaskCompleted within its expiration grace" + open
        }
    }

    func postpone(by gap: Duration) {
        state.withLock { $0.postpone(by: gap) }
    }

    /// Ends the task as failed when `message` returns a reason for the current state.
    @discardableResult
    private func fail(_ message: (TaskState) -> String?) -> Bool {
        let failed = state.withLock { state -> Bool in
            guard let text = message(state) else { return false }
            state.phase = .ended
            environment.hub.emit(.failed(identifier: identifier, message: text))
            return true
        }
        if failed { environment.onEnd() }
        return failed
    }
}
