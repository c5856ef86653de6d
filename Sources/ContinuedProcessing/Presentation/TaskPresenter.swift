/// A view of running tasks that lives outside the program: a desktop
/// notification, a service manager's status, a job tray.
///
/// The program that runs the tasks feeds every presenter the task's
/// ``TaskPresentation`` as it changes (several times a second is fine: a presenter
/// decides how often it shows an update), and gives it, through ``attach(_:)``,
/// the ``TaskActions`` a person may take from that view. `ContinuedProcessing`
/// knows no particular presenter; the program chooses and wires them.
public protocol TaskPresenter: AnyObject, Sendable {
    /// Called once, before the first ``present(_:)``, with what the person can do from this view.
    func attach(_ actions: TaskActions)
    /// The task as it is now. After a presentation in ``TaskPresentation/State/ended(success:)``
    /// no other follows; the presenter shows its final state and lets go of its resources.
    func present(_ presentation: TaskPresentation)
}

/// What a person can do to a task from a view outside the program.
public struct TaskActions: Sendable {
    private let cancelTask: @Sendable () -> Void
    private let pauseTask: (@Sendable (Bool) -> Void)?

    /// Actions that call `cancel` when the person cancels the task; the task cannot be paused.
    public init(cancel: @escaping @Sendable () -> Void) {
        cancelTask = cancel
        pauseTask = nil
    }

    /// Actions that call `cancel` when the person cancels the task, and `setPaused` with `true` when
    /// they pause it and `false` when they let it go on. The program holds its work while paused and
    /// tells the scheduler (``TaskScheduler/setSuspended(_:taskWithIdentifier:)``), whose watchdog then
    /// does not count the pause as a stall.
    public init(cancel: @escaping @Sendable () -> Void, setPaused: @escaping @Sendable (Bool) -> Void) {
        cancelTask = cancel
        pauseTask = setPaused
    }

    /// Cancels the task as the user does: it expires as ``ExpirationReason/userCancelled``,
    /// stops cooperatively and keeps what is done.
    public func cancel() { cancelTask() }

    /// Whether the task can be paused (``setPaused(_:)`` does something): a view offers Pause only then.
    public var canPause: Bool { pauseTask != nil }

    /// Pauses the task (`true`: it starts no new work until resumed, keeping what it holds) or lets it
    /// go on (`false`). Does nothing when ``canPause`` is false.
    public func setPaused(_ paused: Bool) { pauseTask?(paused) }
}

extension TaskScheduler {
    /// The actions of the task (or pending request) with this identifier: ``TaskActions/cancel()``
    /// calls ``cancel(taskRequestWithIdentifier:)``. A program that maps the user's cancel onto
    /// something else (a command-line program's Ctrl-C path) builds its own ``TaskActions``.
    public nonisolated func actions(forTaskWithIdentifier identifier: String) -> TaskActions {
        TaskActions(cancel: { Task { await self.cancel(taskRequestWithIdentifier: identifier) } })
    }
}
