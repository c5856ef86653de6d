/// Why the scheduler refused a registration or a submission.
public enum TaskSchedulerError: Error, Equatable {
    /// The identifier matches no permitted identifier, exact or wildcard.
    case notPermitted
    /// The identifier has no registered launch handler.
    case notRegistered
    /// A launch handler is already registered for the identifier.
    case alreadyRegistered
    /// The request needs resources this machine does not support.
    case unavailable
    /// The pending queue is full.
    case tooManyPendingTaskRequests
    /// A `.fail` request could not start at once, or its identifier is already pending or running.
    case immediateRunIneligible
}

extension TaskSchedulerError: CustomStringConvertible {
    /// A sentence a command-line program can show as it is.
    public var description: String {
        switch self {
        case .notPermitted: "the task identifier is not permitted"
        case .notRegistered: "no launch handler is registered for the task identifier"
        case .alreadyRegistered: "a launch handler is already registered for the task identifier"
        case .unavailable: "a required resource is not available on this machine"
        case .tooManyPendingTaskRequests: "too many task requests are pending"
        case .immediateRunIneligible: "the task cannot start immediately"
        }
    }
}
