import Synchronization

/// Runs continued-processing tasks: the analog of `BGTaskScheduler`.
///
/// Configure it with the permitted identifiers, register a launch handler per identifier,
/// then submit requests. It starts each request when a slot of its resource class is free
/// (FIFO per class), watches progress, and ends tasks early when asked to. Observers follow
/// it through ``events()``; it never prints.
public actor TaskScheduler {
    /// The closure that does a task's work.
    typealias LaunchHandler = @Sendable (ContinuedProcessingTask) async -> Void

    let configuration: Configuration
    let hub = EventHub()
    private let identifiers: IdentifierPolicy
    private var handlers: [String: LaunchHandler] = [:]
    private var pending: [ContinuedProcessingTaskRequest] = []
    /// Why every task was expired (``expireAll(reason:)``: the process is stopping), or nil. A request submitted
    /// after it starts expired: a Ctrl-C between a program's lifecycle start and its submission expired nothing,
    /// and the task then ran to its end (found 2026-11-28).
    private var expiredAllReason: ExpirationReason?
    private var probedResources: ContinuedProcessingTaskRequest.Resources?
    /// Started tasks until the scheduler notices they ended.
    var running: [RunningTask] = []
    /// The polling loop; it runs only while tasks do.
    var watchdog: Task<Void, Never>?
    /// Identifiers whose work their program holds (``setSuspended(_:taskWithIdentifier:)``), started or not.
    private var suspended: Set<String> = []
    /// How many times the whole process was continued after a stop (``processContinued()``): what tells
    /// the watchdog that a late poll was a stopped process, not a busy one.
    nonisolated let continuations = Atomic<Int>(0)

    /// Says that the whole process was just continued after a stop (SIGCONT, after SIGTSTP or a plain
    /// SIGSTOP): the watchdog excuses the time it stood still. ``ProcessLifecycle`` calls it; safe from
    /// any thread, a signal handler's queue included.
    public nonisolated func processContinued() {
        continuations.add(1, ordering: .relaxed)
    }

    /// Creates a scheduler.
    ///
    /// - Parameters:
    ///   - permittedIdentifiers: Exact identifiers, and wildcards ending in `.*` that accept
    ///     any non-empty suffix (`org.kiln.export.*` accepts `org.kiln.export.job42`).
    ///   - configuration: Limits, timings and hooks.
    public init(permittedIdentifiers: [String], configuration: Configuration = .init()) {
        identifiers = IdentifierPolicy(permittedIdentifiers)
        self.configuration = configuration
    }

    /// The resources this machine supports, from the configuration's `resourceProbe` (asked once).
    public var supportedResources: ContinuedProcessingTaskRequest.Resources {
        if let probedResources { return probedResources }
        let resources = configuration.resourceProbe()
        probedResources = resources
        return resources
    }

    /// Registers the launch handler for an identifier, at any time before its submission.
    ///
    /// - Throws: ``TaskSchedulerError/notPermitted`` when the identifier is not permitted,
    ///   ``TaskSchedulerError/alreadyRegistered`` when it already has a handler.
    public func register(
        forTaskWithIdentifier identifier: String,
        launchHandler: @escaping @Sendable (ContinuedProcessingTask) async -> Void
    ) throws {
        guard identifiers.permits(identifier) else { throw TaskSchedulerError.notPermitted }
        guard handlers[identifier] == nil else { throw TaskSchedulerError.alreadyRegistered }
        handlers[identifier] = launchHandler
    }

    /// Starts the request now if a slot is free, else queues it (or rejects it under `.fail`).
    ///
    /// A request whose identifier is already pending or running is ignored under `.queue`.
    /// A rejected submission emits no event.
    ///
    /// - Throws: ``TaskSchedulerError/notPermitted``, ``TaskSchedulerError/notRegistered``,
    ///   ``TaskSchedulerError/unavailable`` (required resources not supported),
    ///   ``TaskSchedulerError/immediateRunIneligible`` (`.fail` and no free slot, or a duplicate),
    ///   ``TaskSchedulerError/tooManyPendingTaskRequests`` (the queue is full).
    public func submit(_ request: ContinuedProcessingTaskRequest) throws {
        guard identifiers.permits(request.identifier) else { throw TaskSchedulerError.notPermitted }
        guard handlers[request.identifier] != nil else { throw TaskSchedulerError.notRegistered }
        guard supportedResources.isSuperset(of: request.requiredResources) else {
            throw TaskSchedulerError.unavailable
        }
        reap()
        if isPendingOrRunning(request.identifier) {
            if request.strategy == .fail { throw TaskSchedulerError.immediateRunIneligible }
            return
        }
        if hasSlot(for: request.requiredResources) {
            start(request)
            if let reason = expiredAllReason, let started = running.last, started.task.identifier == request.identifier {
                started.task.expire(reason)
            }
            return
        }
        guard request.strategy == .queue else { throw TaskSchedulerError.immediateRunIneligible }
        if let reason = expiredAllReason {
            // As expireAll drops a pending request.
            hub.emit(.expiring(identifier: request.identifier, reason: reason))
            return
        }
        guard pending.count < configuration.maxPendingRequests else {
            throw TaskSchedulerError.tooManyPendingTaskRequests
        }
        pending.append(request)
        hub.emit(.queued(identifier: request.identifier, position: pending.count))
    }

    /// Removes a pending request (emitting `.expiring` with `.userCancelled`), or expires
    /// the running task with that identifier as `.userCancelled`. Unknown identifiers are ignored.
    public func cancel(taskRequestWithIdentifier identifier: String) {
        if let index = pending.firstIndex(where: { $0.identifier == identifier }) {
            pending.remove(at: index)
            hub.emit(.expiring(identifier: identifier, reason: .userCancelled))
        } else if let entry = running.first(where: { $0.task.identifier == identifier }) {
            entry.task.expire(.userCancelled)
        }
    }

    /// The requests waiting to start, first in line first.
    public var pendingTaskRequests: [ContinuedProcessingTaskRequest] { pending }

    /// The tasks started and not yet ended, for observers that read their `progress`.
    public var runningTasks: [ContinuedProcessingTask] {
        running.map(\.task).filter { $0.phase != .ended }
    }

    /// The progress snapshot of a running task, or `nil` when none has that identifier.
    public func snapshot(ofTaskWithIdentifier identifier: String) -> TaskSnapshot? {
        guard let entry = running.first(where: { $0.task.identifier == identifier && $0.task.phase != .ended })
        else { return nil }
        return entry.watch.snapshot(identifier: identifier, fraction: entry.task.progress.fractionCompleted, at: .now)
    }

    /// Expires every running task and drops every pending request, each with
    /// `.expiring(identifier:reason:)`: what SIGTERM and Ctrl-C call. A request submitted later is treated alike
    /// (started and expired at once where it would start, else dropped).
    public func expireAll(reason: ExpirationReason) {
        expiredAllReason = expiredAllReason ?? reason
        for entry in running {
            entry.task.expire(reason)
        }
        let dropped = pending
        pending.removeAll()
        for request in dropped {
            hub.emit(.expiring(identifier: request.identifier, reason: reason))
        }
    }

    /// Says that the program holds (`true`) or releases (`false`) the work of the task `identifier`,
    /// running or still pending: a person paused it from a view (``TaskActions/setPaused(_:)``). While held,
    /// the watchdog neither expires the task as stalled nor counts the time in its estimates or in the
    /// slow-progress question. The scheduler does not stop the work itself: the program does.
    public func setSuspended(_ suspended: Bool, taskWithIdentifier identifier: String) {
        let now = ContinuousClock.now
        if suspended {
            self.suspended.insert(identifier)
        } else {
            self.suspended.remove(identifier)
        }
        for index in running.indices where running[index].task.identifier == identifier {
            if suspended {
                running[index].watch.suspend(at: now)
            } else {
                running[index].watch.resume(at: now)
            }
        }
    }

    /// A new stream of every event emitted after this call returns, in order.
    public nonisolated func events() -> AsyncStream<TaskEvent> {
        hub.subscribe()
    }

    // MARK: - Slots and queue

    /// Forgets ended tasks and starts what their slots now allow.
    func reap() {
        running.removeAll { $0.task.phase == .ended }
        var index = 0
        while index < pending.count, running.count < max(1, configuration.maxConcurrentTasks) {
            if hasSlot(for: pending[index].requiredResources) {
                start(pending.remove(at: index))
            } else {
                index += 1  // FIFO per class: a CPU request may pass a GPU request that waits.
            }
        }
    }

    private func hasSlot(for resources: ContinuedProcessingTaskRequest.Resources) -> Bool {
        guard running.count < max(1, configuration.maxConcurrentTasks) else { return false }
        guard resources.contains(.gpu) else { return true }
        return running.count(where: \.usesGPU) < max(1, configuration.maxConcurrentGPUTasks)
    }

    private func isPendingOrRunning(_ identifier: String) -> Bool {
        pending.contains { $0.identifier == identifier } || running.contains { $0.task.identifier == identifier }
    }

    private func start(_ request: ContinuedProcessingTaskRequest) {
        guard let handler = handlers[request.identifier] else { return }  // checked at submission
        let environment = TaskEnvironment(
            hub: hub,
            expirationGrace: configuration.expirationGrace,
            criticalBudget: configuration.criticalBudget,
            log: configuration.log,
            onEnd: { [weak self] in Task { await self?.reap() } }
        )
        let task = ContinuedProcessingTask(request: request, environment: environment)
        // Emitted before the handler runs, so `.started` precedes the task's own events.
        hub.emit(.started(identifier: request.identifier))
        let handle = Task {
            await handler(task)
            task.handlerReturned()
        }
        var watch = ProgressWatch(startedAt: .now)
        if suspended.contains(request.identifier) { watch.suspend(at: .now) }
        running.append(RunningTask(task: task, handle: handle, watch: watch))
        startWatchdog()
    }
}
