/// A running task's progress at one moment, as the slow-progress question sees it.
public struct TaskSnapshot: Sendable, Equatable {
    /// The task identifier.
    public var identifier: String
    /// The fraction of the work done, from 0 to 1.
    public var fractionCompleted: Double
    /// How long the task has run, not counting time the process was stopped.
    public var elapsed: Duration
    /// The time still needed at the rate so far; `nil` before any progress.
    public var estimatedRemaining: Duration?

    /// Creates a snapshot.
    public init(identifier: String, fractionCompleted: Double, elapsed: Duration, estimatedRemaining: Duration?) {
        self.identifier = identifier
        self.fractionCompleted = fractionCompleted
        self.elapsed = elapsed
        self.estimatedRemaining = estimatedRemaining
    }
}
