import ContinuedProcessing
import Export
import Foundation
import Synchronization

/// Follows a running export the way any UI would: it subscribes to the
/// scheduler's events (to learn that the task started or is expiring) and
/// polls the task's `progress` ten times a second; it feeds the reporter
/// and the live status. Nothing is pushed to it by the job.
final class ProgressObserver: Sendable {
    private let session: ExportSession
    private let reporter: any ExportReporter
    private let status: StatusPublisher
    private let events: AsyncStream<TaskEvent>
    private let tasks = Mutex<[Task<Void, Never>]>([])
    private let stopping = Atomic<Bool>(false)

    /// Subscribes at once, so no event emitted after this returns is missed.
    init(session: ExportSession, scheduler: TaskScheduler, reporter: any ExportReporter, status: StatusPublisher) {
        self.session = session
        self.reporter = reporter
        self.status = status
        events = scheduler.events()
    }

    /// Starts following.
    func start() {
        let watchEvents = Task { [self] in
            for await event in events where event.identifier == session.identifier {
                if case .expiring(_, let reason) = event {
                    stopping.store(true, ordering: .relaxed)
                    reporter.stopping(reason: Self.describe(reason))
                }
                if event.isEnd { return }
            }
        }
        let poll = Task { [self] in
            let start = ContinuousClock.now
            let completedAtStart = session.job.counts.completed
            var estimator = RateEstimator()
            while !Task.isCancelled {
                tick(start: start, completedAtStart: completedAtStart, estimator: &estimator)
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        tasks.withLock { $0 = [watchEvents, poll] }
    }

    /// Stops following.
    func stop() async {
        for task in tasks.withLock({ $0 }) {
            task.cancel()
            await task.value
        }
    }

    private func tick(start: ContinuousClock.Instant, completedAtStart: Int, estimator: inout RateEstimator) {
        guard let task = session.task else { return }
        // Progress has no locking on Linux; reading a fraction while the job updates
        // it can at worst see a value a moment old, which a 10 Hz display tolerates.
        let fraction = task.progress.fractionCompleted
        let counts = session.job.counts
        let elapsed = ContinuousClock.now - start
        let seconds = max(elapsed.seconds, 1e-3)
        let isStopping = stopping.load(ordering: .relaxed)
        let snapshot = ProgressSnapshot(
            fraction: fraction, counts: counts, total: session.job.items.count, elapsed: elapsed,
            remaining: estimator.update(fraction: fraction, elapsed: elapsed),
            megapixelsPerSecond: Double(counts.pixels) / 1e6 / seconds,
            imagesPerSecond: Double(counts.completed - completedAtStart) / seconds,
            current: counts.current, stopping: isStopping)
        reporter.tick(snapshot)
        status.publishIfDue(isStopping ? .stopping : .running, fraction: fraction)
    }

    private static func describe(_ reason: ExpirationReason) -> String {
        switch reason {
        case .userCancelled: return "cancelled"
        case .systemTermination: return "the system asked kiln to stop"
        case .stalled: return "no progress for the stall timeout"
        case .declinedWhenSlow: return "slower than expected"
        }
    }
}
