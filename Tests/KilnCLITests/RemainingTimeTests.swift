import Export
import KilnTestSupport
import ImageCore
import Testing

/// The ETA of the bar (``RemainingTimeEstimator``), fed what a display polling
/// ten times a second sees of a steady job with noise: images of uneven sizes,
/// two workers, each image moving the pixel fraction in three steps
/// (decoded, rendered, written).
@Suite struct RemainingTimeTests {
    /// The fraction done at each 0.1 s poll, and the job's total time.
    private func simulatedJob(seed: UInt64, images: Int = 40) -> (samples: [(at: Double, fraction: Double)], total: Double) {
        var rng = SeededGenerator(seed: seed)
        let sizes = (0..<images).map { _ in Double.random(in: 0.5...1.5, using: &rng) }
        let allPixels = sizes.reduce(0, +)
        var workers = [0.0, 0.0]  // when each worker is free
        var steps: [(at: Double, pixels: Double)] = []
        for size in sizes {
            let worker = workers[0] <= workers[1] ? 0 : 1
            let start = workers[worker]
            let duration = 3 * size * Double.random(in: 0.7...1.3, using: &rng)  // ~3 s per image, noisy
            for stage in 1...3 { steps.append((start + duration * Double(stage) / 3, size / 3)) }
            workers[worker] = start + duration
        }
        let total = workers.max()!
        steps.sort { $0.at < $1.at }
        var samples: [(Double, Double)] = []
        var done = 0.0, next = 0
        for tick in 1...Int(total * 10) {
            let at = Double(tick) / 10
            while next < steps.count && steps[next].at <= at {
                done += steps[next].pixels
                next += 1
            }
            samples.append((at, done / allPixels))
        }
        return (samples, total)
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func afterTenPercentTheEstimateStaysWithin25PercentOfTheTruth(_ seed: UInt64) {
        let job = simulatedJob(seed: seed)
        var estimator = RemainingTimeEstimator()
        var worst = 0.0, checked = 0
        for sample in job.samples {
            let remaining = estimator.update(fraction: sample.fraction, elapsed: sample.at)
            guard sample.fraction >= 0.1 else { continue }
            guard let remaining else {
                Issue.record("no estimate at \(sample.at) s, \(sample.fraction) done")
                continue
            }
            worst = max(worst, abs(sample.at + remaining - job.total) / job.total)
            checked += 1
        }
        #expect(checked > 100)
        #expect(worst <= 0.25, "ETA + elapsed strayed \(Int(worst * 100)) % from the final \(job.total) s")
    }

    /// The estimate is never below what `atLeast` says the slowest image in hand needs.
    @Test func theEstimateIsNeverBelowTheCriticalPath() {
        var estimator = RemainingTimeEstimator()
        var remaining: Double?
        var rates: [Double] = []
        for tick in 0...450 {
            let at = Double(tick) / 10
            remaining = estimator.update(fraction: 0.02 * at, elapsed: at, atLeast: { rate in
                rates.append(rate)
                return 10
            })
        }
        // At 45 s the fraction is 0.9 at 0.02 a second: the rate alone says 5 s.
        #expect(abs((remaining ?? 0) - 10) < 1e-9, "\(remaining ?? -1)")
        #expect(abs((rates.last ?? 0) - 0.02) < 1e-6, "the smoothed rate is handed on: \(rates.last ?? -1)")
        var alone = RemainingTimeEstimator()
        for tick in 0...450 {
            let at = Double(tick) / 10
            remaining = alone.update(fraction: 0.02 * at, elapsed: at)
        }
        #expect(abs((remaining ?? 0) - 5) < 0.5, "\(remaining ?? -1)")
    }

    @Test func noEstimateBeforeItIsStable() {
        var estimator = RemainingTimeEstimator()
        #expect(estimator.update(fraction: 0, elapsed: 0.1) == nil)
        #expect(estimator.update(fraction: 0.05, elapsed: 1) == nil, "warming up")
        #expect(estimator.update(fraction: 0.05, elapsed: 4) != nil, "stable after the warm-up with work done")
    }
}
