import Foundation

/// Estimates the time left of a job from how fast its pixel-weighted fraction
/// moves, as indicatif and tqdm do: an exponential moving average of the rate
/// (pixels per second, as a fraction of all pixels).
///
/// The fraction moves in steps (an image decoded, rendered, written), so the
/// average takes one sample per step — the step over the time since the
/// previous one, weighted by that time (`1 - e^(-dt/τ)`) — rather than one per
/// poll, which would read as bursts and silences. Between steps the estimate
/// counts down. The average starts at zero and is divided by the weight it has
/// gathered, so early estimates are not biased low. An estimate is given only
/// once it is stable: after ``warmUp`` seconds and ``minimumFraction`` of the work.
public struct RemainingTimeEstimator: Sendable {
    /// The time constant of the average, in seconds: older rates weigh `e^(-age/τ)`.
    public var timeConstant: Double
    /// Seconds of history before an estimate is given.
    public var warmUp: Double
    /// Fraction of the work done before an estimate is given.
    public var minimumFraction: Double

    private var average = 0.0
    private var weight = 0.0
    /// The fraction at its last step, and when.
    private var lastStep: (fraction: Double, at: Double)?

    /// An estimator; the defaults suit a display polled ten times a second.
    public init(timeConstant: Double = 10, warmUp: Double = 3, minimumFraction: Double = 0.02) {
        self.timeConstant = timeConstant
        self.warmUp = warmUp
        self.minimumFraction = minimumFraction
    }

    /// The smoothed rate, in fraction of the work per second (nil before the fraction first moves).
    public var rate: Double? { weight > 0 ? average / weight : nil }

    /// Feeds the fraction done at `elapsed` seconds; returns the estimated seconds left, or nil while unstable.
    public mutating func update(fraction: Double, elapsed: Double) -> Double? {
        guard let step = lastStep else {
            lastStep = (fraction, elapsed)
            return nil
        }
        if fraction > step.fraction, elapsed > step.at {
            let dt = elapsed - step.at
            let decay = exp(-dt / timeConstant)
            average = decay * average + (1 - decay) * (fraction - step.fraction) / dt
            weight = decay * weight + (1 - decay)
            lastStep = (fraction, elapsed)
        }
        guard weight > 0, elapsed >= warmUp, fraction >= minimumFraction, average > 1e-12,
              let since = lastStep.map({ elapsed - $0.at }) else { return nil }
        return max(0, (1 - fraction) / (average / weight) - since)
    }
}
