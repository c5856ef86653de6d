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
    /// Decoded megapixels per second since the start.
    var megapixelsPerSecond: Double
    /// Images finished per second since the start.
    var imagesPerSecond: Double
    /// The file most recently started.
    var current: String?
    /// True once the task is expiring (the bar says it is stopping).
    var stopping: Bool
}

/// Estimates time left from how fast the fraction moves, smoothed with an
/// exponential moving average so the ETA does not jump with each image.
struct RateEstimator {
    private var smoothedRate: Double?
    private var last: (fraction: Double, at: Duration)?
    /// Weight of the newest sample (per second of history).
    private let responsiveness = 0.15

    /// Feeds a sample and returns the estimated remaining time.
    mutating func update(fraction: Double, elapsed: Duration) -> Duration? {
        defer { last = (fraction, elapsed) }
        guard let last, elapsed > last.at else { return nil }
        let dt = (elapsed - last.at).seconds
        let rate = max(0, fraction - last.fraction) / dt
        let alpha = min(1, responsiveness * dt * 10)
        smoothedRate = smoothedRate.map { $0 + alpha * (rate - $0) } ?? rate
        guard let smoothedRate, smoothedRate > 1e-9, fraction > 0.01 else { return nil }
        return .seconds((1 - fraction) / smoothedRate)
    }
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
