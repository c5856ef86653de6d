import Export

/// What a progress display shows at one moment, read by polling the task's
/// `progress` and the job's counts (observers never get pushed updates).
struct ProgressSnapshot: Sendable {
    /// Fraction of the work done, weighted by pixels (0…1).
    var fraction: Double
    /// The job's counts.
    var counts: ExportJob.Counts
    /// Items in the plan.
    var total: Int
    /// Time since the task started.
    var elapsed: Duration
    /// Smoothed estimate of the time left, when there is enough history.
    var remaining: Duration?
    /// Throughput in input megapixels per second: the smoothed rate of the fraction (every stage
    /// weighted by its cost, as the ETA's) times the pixels the fraction stands for.
    var megapixelsPerSecond: Double
    /// Images finished per second since the start.
    var imagesPerSecond: Double
    /// The file most recently started.
    var current: String?
    /// True once the task is expiring (the bar says it is stopping).
    var stopping: Bool
    /// The run's last frame, taken once its task ended: shown whenever the previous one was (a JSON stream's
    /// last `progress` said 9 of 20 images, 0.60, before its `end`).
    var isLast = false
    /// The job is paused (from a view, or its process stopped): no estimate, and the JSON event says so.
    var paused = false
}

extension Duration {
    /// The duration in seconds as a `Double`.
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) * 1e-18
    }

    /// `m:ss` or `h:mm:ss`.
    var clock: String {
        let total = Int(seconds.rounded())
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
    }
}
