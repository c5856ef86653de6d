import ContinuedProcessing
import Export
import Foundation
import Locking
import Synchronization

/// Follows a running export the way any UI would: it subscribes to the
/// scheduler's events (to learn that the task started or is expiring) and
/// polls the job ten times a second — its counts and the fraction of its task's
/// `progress`, as one snapshot; it feeds the reporter, the live status and the
/// system's views of the job (``JobPresentation``).
/// Nothing is pushed to it by the job.
final class ProgressObserver: Sendable {
    private let session: ExportSession
    private let reporter: any ExportReporter
    private let status: StatusPublisher
    private let presentation: JobPresentation
    private let events: AsyncStream<TaskEvent>
    private let tasks = Locked<[Task<Void, Never>]>([])
    private let stopping = Atomic<Bool>(false)
    private let stalled = Locked<[String]?>(nil)
    /// The frame shown last; its lock orders the frames: a poll's and the stop's.
    private let lastFrame = Locked<ProgressSnapshot?>(nil)
    private let grace: Double

    /// Subscribes at once, so no event emitted after this returns is missed.
    /// `grace`: the seconds an expiring job has to finish its images in flight (shown when stopping).
    init(session: ExportSession, scheduler: TaskScheduler, reporter: any ExportReporter, status: StatusPublisher,
         presentation: JobPresentation, grace: Double) {
        self.session = session
        self.grace = grace
        self.reporter = reporter
        self.status = status
        self.presentation = presentation
        events = scheduler.events()
    }

    /// Starts following.
    func start() {
        let watchEvents = Task { [self] in
            for await event in events where event.identifier == session.identifier {
                if case .expiring = event {
                    // The bar's and the views' last line loses its ETA before they show the stop (their first
                    // stopping frame, and systemd's STATUS= with STOPPING=1, showed the running job's). Under
                    // the frames' lock: a poll under way cannot show a running frame after it.
                    lastFrame.withLock { last in
                        stopping.store(true, ordering: .relaxed)
                        guard var frame = last else { return }
                        frame.remaining = nil
                        frame.stopping = true
                        last = frame
                        reporter.tick(frame)
                        presentation.progress(frame)
                    }
                }
                presentation.apply(event)
                if case .expiring(_, let reason) = event {
                    if reason == .stalled { stalled.withLock { $0 = session.job.imagesInHand } }
                    // At once, not when due, and before the event says it: `kiln cancel` reads it, and a second
                    // signal would be a second Ctrl-C.
                    status.publish(.stopping)
                    reporter.stopping(reason: reason, inFlight: session.job.counts.inFlight, grace: grace)
                }
                if event.isEnd { return }
            }
        }
        let poll = Task { [self] in
            let start = ContinuousClock.now
            let completedAtStart = session.job.counts.completed
            let pausedAtStart = session.job.pauses.paused
            var estimator = RemainingTimeEstimator()
            while !Task.isCancelled {
                tick(start: start, pausedAtStart: pausedAtStart, completedAtStart: completedAtStart, estimator: &estimator)
                try? await Task.sleep(for: .milliseconds(100))
            }
            tick(start: start, pausedAtStart: pausedAtStart, completedAtStart: completedAtStart, estimator: &estimator,
                 last: true)
        }
        tasks.withLock { $0 = [watchEvents, poll] }
    }

    /// Shows the last frame at once, as the job stands: a second Ctrl-C ends the process before the poll's last
    /// frame (the `end` came after a `progress` of fewer images than it counted, or none since the stop).
    func showLast() {
        lastFrame.withLock { last in
            guard var frame = last else { return }
            (frame.counts, frame.fraction) = session.job.snapshot
            frame.remaining = nil
            frame.stopping = true
            frame.isLast = true
            last = frame
            reporter.tick(frame)
        }
    }

    /// The images in hand when the stall watchdog expired the task, if it did.
    var stalledOn: [String]? { stalled.withLock { $0 } }

    /// Stops following. `afterEnd`: the task's end event was sent (its session returned), so the
    /// events are read up to it rather than cancelled: a `stopping` sent just before the end (a stall
    /// or a stop with no image in flight ends the task at once) is still reported.
    func stop(afterEnd: Bool) async {
        let tasks = tasks.withLock { $0 }
        for (index, task) in tasks.enumerated() {
            if index > 0 || !afterEnd { task.cancel() }
            await task.value
        }
    }

    /// Shows a frame; `last`: the run's last, once its task ended (see ``ProgressSnapshot/isLast``). The time
    /// paused since `start` (the job's pauses then were `pausedAtStart`) is left out of the elapsed time, the
    /// rates and the estimate, and a paused job shows no estimate.
    private func tick(start: ContinuousClock.Instant, pausedAtStart: Duration, completedAtStart: Int,
                      estimator: inout RemainingTimeEstimator, last isLast: Bool = false) {
        guard session.task != nil else { return }
        // Counts and fraction from one snapshot, so no display shows an image done that its fraction leaves out.
        let (counts, fraction) = session.job.snapshot
        let paused = session.job.pauses.isPaused
        let elapsed = ContinuousClock.now - start - (session.job.pauses.paused - pausedAtStart)
        let seconds = max(elapsed.seconds, 1e-3)
        let remaining = estimator.update(fraction: fraction, elapsed: elapsed.seconds,
                                         atLeast: { session.job.secondsLeftInHand(rate: $0) }).map { Duration.seconds($0) }
        var snapshot = ProgressSnapshot(
            fraction: fraction, counts: counts, total: session.job.items.count, elapsed: elapsed, remaining: remaining,
            // The rate the ETA is drawn from, in the input pixels it stands for: every stage counts.
            megapixelsPerSecond: (estimator.rate ?? 0) * session.job.pixelsPerFraction / 1e6,
            imagesPerSecond: Double(counts.completed - completedAtStart) / seconds,
            current: counts.current, stopping: false, isLast: isLast, paused: paused)
        if paused { snapshot.remaining = nil }
        lastFrame.withLock { last in
            // Stopping, the work left is no longer what the job will do: no estimate. Read under the lock the
            // stop takes: this frame is shown before the stop's or knows of it.
            if stopping.load(ordering: .relaxed) {
                snapshot.remaining = nil
                snapshot.stopping = true
            }
            last = snapshot
            reporter.tick(snapshot)
            presentation.progress(snapshot)
        }
        // Paused from a view (a KDE job view's Suspend): `kiln status` says suspended, as after Ctrl-Z.
        status.publishIfDue(snapshot.stopping ? .stopping : session.job.isPaused ? .suspended : .running)
    }
}
