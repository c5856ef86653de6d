/// What the system's view of a task shows at one moment: the analog of the
/// progress iOS draws for a `BGContinuedProcessingTask` outside its app.
///
/// A program keeps one presentation per task. ``apply(_:)`` folds in the task's
/// ``TaskEvent``s (title, state); the program fills in what it polls (the fraction
/// of the task's `progress`, its counts, the estimated time left, its own one-line
/// status text) and hands the result to its ``TaskPresenter``s.
public struct TaskPresentation: Sendable, Equatable {
    /// Where the task is in its life, as a view shows it.
    public enum State: Sendable, Equatable {
        /// The request waits; `position` is 1-based (1 is next in line).
        case queued(position: Int)
        /// The task runs.
        case running
        /// The task is being ended early for `reason`; it keeps what is done.
        case stopping(ExpirationReason)
        /// The task ended; `success` is what it reported (`false` when it failed to report).
        case ended(success: Bool)
    }

    /// The task identifier.
    public var identifier: String
    /// The task's title.
    public var title: String
    /// The task's subtitle.
    public var subtitle: String
    /// Where the task is in its life.
    public var state: State
    /// The fraction of the work done, from 0 to 1.
    public var fractionCompleted: Double = 0
    /// Units of work finished (for an export: images).
    public var completedUnits = 0
    /// Units of work in all.
    public var totalUnits = 0
    /// Units that failed (counted in ``completedUnits`` too).
    public var failedUnits = 0
    /// The estimated time left; `nil` when unknown or no longer meaningful (stopping).
    public var estimatedRemaining: Duration?
    /// The program's own one-line description of the progress (what its terminal display shows), if any.
    public var statusLine: String?

    /// A presentation of a task that has not started: ``State/queued(position:)`` at position 1.
    public init(identifier: String, title: String, subtitle: String) {
        self.identifier = identifier
        self.title = title
        self.subtitle = subtitle
        state = .queued(position: 1)
    }

    /// Folds in one event of the task (events about other identifiers are ignored);
    /// returns whether the presentation changed.
    @discardableResult
    public mutating func apply(_ event: TaskEvent) -> Bool {
        guard event.identifier == identifier else { return false }
        let before = self
        switch event {
        case .queued(_, let position): state = .queued(position: position)
        case .started: state = .running
        case .titleChanged(_, let title, let subtitle):
            self.title = title
            self.subtitle = subtitle
        case .slowProgress: break
        case .expiring(_, let reason): state = .stopping(reason)
        case .completed(_, let success): state = .ended(success: success)
        case .failed: state = .ended(success: false)
        }
        return self != before
    }
}
