/// Something that happened to a task, delivered to every subscriber of ``TaskScheduler/events()``.
public enum TaskEvent: Sendable, Equatable {
    /// The request waits; `position` is 1-based (1 is next in line).
    case queued(identifier: String, position: Int)
    /// The launch handler was called.
    case started(identifier: String)
    /// The task called ``ContinuedProcessingTask/updateTitle(_:subtitle:)``.
    case titleChanged(identifier: String, title: String, subtitle: String)
    /// The task will take longer than the expected duration; the initiator is being asked.
    case slowProgress(identifier: String)
    /// The task is being ended early, or a pending request was dropped.
    case expiring(identifier: String, reason: ExpirationReason)
    /// The task called ``ContinuedProcessingTask/setTaskCompleted(success:)``.
    case completed(identifier: String, success: Bool)
    /// The task ended without reporting completion; `message` says how.
    case failed(identifier: String, message: String)
}

extension TaskEvent {
    /// The identifier of the task or request the event is about.
    public var identifier: String {
        switch self {
        case .queued(let identifier, _), .started(let identifier),
             .titleChanged(let identifier, _, _), .slowProgress(let identifier),
             .expiring(let identifier, _), .completed(let identifier, _),
             .failed(let identifier, _):
            identifier
        }
    }

    /// Whether this is the last event of a started task (`completed` or `failed`).
    public var isEnd: Bool {
        switch self {
        case .completed, .failed: true
        default: false
        }
    }
}
