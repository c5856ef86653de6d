/// A request to run a registered task: the analog of `BGContinuedProcessingTaskRequest`.
///
/// Build one per job and hand it to ``TaskScheduler/submit(_:)``. The identifier must
/// match one of the scheduler's permitted identifiers and have a registered launch handler.
public struct ContinuedProcessingTaskRequest: Sendable, Hashable {
    /// Creates a request that queues when it cannot start at once and needs only the CPU.
    ///
    /// - Parameters:
    ///   - identifier: The task identifier, exact or matching a `.*` wildcard.
    ///   - title: A localized title a person sees while the task runs.
    ///   - subtitle: A localized subtitle a person sees while the task runs.
    public init(identifier: String, title: String, subtitle: String) {
        self.identifier = identifier
        self.title = title
        self.subtitle = subtitle
        self.strategy = .queue
        self.requiredResources = []
    }

    /// The task identifier; it selects the launch handler.
    public var identifier: String
    /// The localized title shown while the task runs.
    public var title: String
    /// The localized subtitle shown while the task runs.
    public var subtitle: String
    /// What happens when the task cannot start at once; ``SubmissionStrategy/queue`` by default.
    public var strategy: SubmissionStrategy
    /// The resources the task needs beyond the CPU; empty (CPU only) by default.
    public var requiredResources: Resources

    /// What a submission does when no slot is free for it.
    public enum SubmissionStrategy: Sendable, Hashable {
        /// Wait at the end of the queue of its resource class (the default).
        case queue
        /// Reject the submission at once with ``TaskSchedulerError/immediateRunIneligible``.
        case fail
    }

    /// The resources a task requires; the empty set means the CPU alone.
    public struct Resources: OptionSet, Sendable, Hashable {
        /// The raw bit mask.
        public let rawValue: Int

        /// Creates a resource set from its raw bit mask.
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// A usable hardware GPU (never a software rasterizer).
        public static let gpu = Resources(rawValue: 1 << 0)
    }
}
