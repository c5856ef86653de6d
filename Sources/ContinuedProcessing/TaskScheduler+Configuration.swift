extension TaskScheduler {
    /// Limits, timings and hooks of a scheduler; every member has a default.
    public struct Configuration: Sendable {
        /// How many tasks may run at once, GPU tasks included. Default 1; values below 1 count as 1.
        public var maxConcurrentTasks: Int
        /// How many tasks requiring `.gpu` may run at once. Default 1; values below 1 count as 1.
        public var maxConcurrentGPUTasks: Int
        /// How many requests may wait in the queue. Default 64.
        public var maxPendingRequests: Int
        /// How long a task's progress may stand still before it expires as `.stalled`. Default 60 s.
        public var stallInterval: Duration
        /// How long an expired task has to call `setTaskCompleted` before it is failed. Default 5 s.
        public var expirationGrace: Duration
        /// Which resources the machine supports; asked once, on first use.
        /// Default: none (CPU only). This module knows no devices: its user hands
        /// in the discovery it has (`kiln` hands in Vulkan's, through `Export`).
        public var resourceProbe: @Sendable () -> ContinuedProcessingTaskRequest.Resources
        /// Asked at most once per task when it runs slower than ``expectedDuration``;
        /// `false` expires the task as `.declinedWhenSlow`. Default: always continue.
        public var shouldContinueWhenSlow: @Sendable (TaskSnapshot) async -> Bool
        /// The time a task is expected to take; `nil` (the default) never asks the slow-progress question.
        public var expectedDuration: Duration?
        /// How long after expiration open critical sections may delay the end of a task
        /// (the analog of the background time of `beginBackgroundTask`). Default 30 s.
        public var criticalBudget: Duration
        /// Receives diagnostics such as an ignored second `setTaskCompleted`; the scheduler never prints.
        /// Default: discard.
        public var log: @Sendable (String) -> Void

        /// Creates the default configuration.
        public init() {
            maxConcurrentTasks = 1
            maxConcurrentGPUTasks = 1
            maxPendingRequests = 64
            stallInterval = .seconds(60)
            expirationGrace = .seconds(5)
            resourceProbe = { [] }
            shouldContinueWhenSlow = { _ in true }
            expectedDuration = nil
            criticalBudget = .seconds(30)
            log = { _ in }
        }

        /// How often the watchdog polls: a fraction of the shortest interval it enforces.
        var pollInterval: Duration {
            let shortest = [stallInterval, expirationGrace, expectedDuration].compactMap { $0 }.min() ?? stallInterval
            return min(max(shortest / 8, .milliseconds(5)), .milliseconds(500))
        }
    }
}
