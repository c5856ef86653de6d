/// Why the scheduler ended a task early.
///
/// The raw value is a stable word for logs and JSON output.
public enum ExpirationReason: String, Sendable, Equatable {
    /// The user cancelled: `cancel(taskRequestWithIdentifier:)`, `progress.cancel()`, or Ctrl-C.
    case userCancelled
    /// The process was asked to terminate (SIGTERM): the machine needs its resources.
    case systemTermination
    /// The process's terminal closed (SIGHUP, when it was not ignored at the start).
    case hangUp
    /// The task's progress did not advance for the stall interval.
    case stalled
    /// The task was slower than expected and its initiator chose not to continue.
    case declinedWhenSlow
}
