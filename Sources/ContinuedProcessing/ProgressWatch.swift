import Foundation

/// What the watchdog remembers about one running task's progress.
struct ProgressWatch {
    typealias Instant = ContinuousClock.Instant

    private let startedAt: Instant
    private var lastCompleted: Int64 = 0
    private var lastFraction = 0.0
    private var lastAdvance: Instant
    /// Time the whole process was stopped (SIGSTOP, machine sleep): it counts for nothing.
    private var excused = Duration.zero
    private(set) var askedWhenSlow = false
    /// Since when the program holds the task's work (a person paused it); nil while it runs.
    private var suspendedSince: Instant?

    init(startedAt: Instant) {
        self.startedAt = startedAt
        lastAdvance = startedAt
    }

    /// Reads `progress`; returns whether it has stood still for `interval` or longer.
    /// A suspended task never is: the time it is held counts for nothing (``resume(at:)`` excuses it).
    mutating func isStalled(_ progress: Progress, at now: Instant, interval: Duration) -> Bool {
        guard suspendedSince == nil else { return false }
        let completed = progress.completedUnitCount
        let fraction = progress.fractionCompleted
        if completed != lastCompleted || fraction != lastFraction {
            lastCompleted = completed
            lastFraction = fraction
            lastAdvance = now
            return false
        }
        return now - lastAdvance >= interval
    }

    mutating func excuse(_ gap: Duration) {
        excused += gap
        lastAdvance += gap
        // Excused now, not again when the suspension ends.
        suspendedSince = suspendedSince.map { $0 + gap }
    }

    /// The program holds the task's work from `now` (nothing when it does already).
    mutating func suspend(at now: Instant) {
        if suspendedSince == nil { suspendedSince = now }
    }

    /// The work goes on from `now`: the time it was held is excused.
    mutating func resume(at now: Instant) {
        guard let since = suspendedSince else { return }
        suspendedSince = nil
        excuse(now - since)
    }

    func snapshot(identifier: String, fraction: Double, at now: Instant) -> TaskSnapshot {
        let elapsed = now - startedAt - excused - (suspendedSince.map { now - $0 } ?? .zero)
        let remaining: Duration? = fraction > 0 ? elapsed * ((1 - min(fraction, 1)) / fraction) : nil
        return TaskSnapshot(
            identifier: identifier, fractionCompleted: fraction, elapsed: elapsed, estimatedRemaining: remaining)
    }

    /// The snapshot to ask about when the task, after some progress, will overrun
    /// `expected`; `nil` otherwise. Asks at most once.
    mutating func slowSnapshot(identifier: String, fraction: Double, at now: Instant, expected: Duration)
        -> TaskSnapshot?
    {
        guard !askedWhenSlow, suspendedSince == nil, fraction > 0, fraction < 1 else { return nil }
        let snapshot = snapshot(identifier: identifier, fraction: fraction, at: now)
        guard let remaining = snapshot.estimatedRemaining, snapshot.elapsed + remaining > expected else { return nil }
        askedWhenSlow = true
        return snapshot
    }
}
