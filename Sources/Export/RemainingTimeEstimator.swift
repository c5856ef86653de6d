import Foundation

/// Estimates the time left of a job from how fast its pixel-weighted fraction
/// moves, as indicatif and tqdm do: an exponential moving average of the rate
/// (pixels per second, as a fraction of all pixels), with a time constant long
/// enough that images finishing in bursts do not make the estimate jump.
///
/// The average starts at zero and is divided by the weight it has gathered
/// (`1 - e^(-t/τ)`), so early estimates are not biased low. An estimate is
/// given only once it is stable: after ``warmUp`` seconds, once some of the
/// work is done and the rate is positive.
public struct RemainingTimeEstimator: Sendable {
    /// The time constant of the average, in seconds: older rates weigh `e^(-age/τ)`.
    public var timeConstant: Double
    /// Seconds of history before an estimate is given.
    public var warmUp: Double
    /// Fraction of the work done before an estimate is given.
    public var minimumFraction: Double

    private var average = 0.0
    private var weight = 0.0
    private var last: (fraction: Double, at: Double)?

    /// An estimator; the defaults suit a display polled ten times a second.
    public init(timeConstant: Double = 10, warmUp: Double = 3, minimumFraction: Double = 0.02) {
        self.timeConstant = timeConstant
        self.warmUp = warmUp
        self.minimumFraction = minimumFraction
    }

    /// Feeds the fraction done at `elapsed` seconds; returns the estimated seconds left, or nil while unstable.
    public mutating func update(fraction: Double, elapsed: Double) -> Double? {
        defer { last = (fraction, elapsed) }
        guard let last, elapsed > last.at else { return nil }
        let dt = elapsed - last.at
        let rate = max(0, fraction - last.fraction) / dt
        let decay = exp(-dt / timeConstant)
        average = decay * average + (1 - decay) * rate
        weight = decay * weight + (1 - decay)
        let smoothed = average / weight
        guard elapsed >= warmUp, fraction >= minimumFraction, smoothed > 1e-12 else { return nil }
        return max(0, 1 - fraction) / smoothed
    }
}
