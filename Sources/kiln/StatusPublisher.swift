import ArgumentParser
import Export
import Foundation
import Locking

/// Writes the job's live status into the journal for `kiln status` (and
/// the pid `kiln cancel` signals), at most twice a second unless forced.
final class StatusPublisher: Sendable {
    private let journal: Journal
    private let job: ExportJob
    private let device: String
    private let title: String
    private let subtitle: String
    private let last = Locked<ContinuousClock.Instant?>(nil)
    /// The desktop notification the run shows (set from the presenter's thread, read by each publication); until it
    /// shows one, the one the run before left (a run that shows none, `--notify none` or a bar in a terminal, dropped
    /// the record, and the killed run's notification stayed for good).
    private let notification: Locked<ShownNotification?>
    /// When this run started (for the throughput `kiln status` sums over shards).
    private let started = Date()
    private let host = Host.name
    /// The job's fraction when this run started: the throughput counts the work done since.
    private let startFraction: Double
    /// What the run before published: a run that writes nothing keeps its timing and rates.
    private let previous: LiveStatus?

    /// `continuing`: this run continues the job the journal holds (a resume, a shard's retry), whose status it may keep.
    init(journal: Journal, job: ExportJob, device: String, title: String, subtitle: String, continuing: Bool,
         notification earlier: ShownNotification?) {
        self.journal = journal
        notification = Locked(earlier)
        previous = continuing ? journal.status() : nil
        startFraction = job.snapshot.fraction
        self.job = job
        self.device = device
        self.title = title
        self.subtitle = subtitle
    }

    /// Publishes now; counts and fraction come from one snapshot of the job.
    /// `exitCode` is given by the publication that ends the run, so `kiln status` can say how it ended.
    /// `stalls` are the images in hand when the stall watchdog expired the run, and those of them the run
    /// before stalled on too.
    func publish(_ state: LiveStatus.State, queuePosition: Int? = nil, waitingFor: [MachineSlots.Holder]? = nil,
                 reason: String? = nil, exitCode: ExitCode? = nil, stalls: (on: [String], twice: [String])? = nil) {
        // One publication at a time: the poller, the runner and the Ctrl-Z hook share one temporary file.
        last.withLock { last in
            last = .now
            let (counts, fraction) = job.snapshot
            let now = Date()
            var status = LiveStatus(pid: getpid(), state: state, device: device, title: title, subtitle: subtitle,
                                    total: job.items.count, completed: counts.completed, written: counts.written,
                                    skipped: counts.skipped, failed: counts.failed + counts.conflicts,
                                    fraction: state == .finished ? 1 : fraction,
                                    queuePosition: queuePosition, memory: job.memory.limit,
                                    updated: now.timeIntervalSince1970)
            status.finishedFraction = state == .finished ? 1 : job.finishedFraction
            status.host = host
            status.started = started.timeIntervalSince1970
            // Paused time left out, as the bar's rates leave it out.
            let seconds = max(now.timeIntervalSince(started) - job.pauses.paused.seconds, 1e-3)
            status.imagesPerSecond = Double(counts.since(job.earlier).completed) / seconds
            // From the fraction, as the bar's rate: every stage of the images in flight counts (the pixels of
            // finished images said 0 until the first one finished, then moved only as images finished).
            status.pixelsPerSecond = max(0, fraction - startFraction) * job.pixelsPerFraction / seconds
            // A run that finished having written nothing (a retry of a finished shard ends at once) keeps the timing and
            // rates of the run before, which did the work: `kiln status` divided every finished image by the retry's
            // milliseconds (9157 images/s where the shard had done 15), or by the span from the first run to a retry
            // a quarter of an hour later (3.42 → 0.07 images/s).
            if state == .finished, counts.since(job.earlier).written == 0, let previous,
               let before = previous.started {
                status.started = before
                status.updated = previous.updated
                status.imagesPerSecond = previous.imagesPerSecond
                status.pixelsPerSecond = previous.pixelsPerSecond
            }
            status.waitingFor = waitingFor
            status.reason = reason
            status.conflicts = counts.conflicts
            status.exitCode = exitCode?.rawValue
            status.stalledOn = stalls?.on
            status.stalledTwice = stalls?.twice
            status.notification = notification.withLock { $0 }
            journal.publish(status)
        }
    }

    /// Notes the desktop notification the run shows: the next publication names it.
    func noteNotification(_ shown: ShownNotification) {
        notification.withLock { $0 = shown }
    }

    /// Publishes if the last publication is at least half a second old.
    func publishIfDue(_ state: LiveStatus.State) {
        let due = last.withLock { last in last.map { ContinuousClock.now - $0 >= .milliseconds(500) } ?? true }
        if due { publish(state) }
    }
}
