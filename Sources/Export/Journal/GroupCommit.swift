import Foundation

/// Puts finished images' outputs in place and records them in the journal, as
/// durably as the job's ``Durability`` says, and only then reports them: an
/// image is never reported finished before the promise about it holds.
///
/// - `full` and `none` commit each image at once on the worker that made it
///   (`full`: the output's data was flushed when staged, the record is flushed
///   before the worker moves on).
/// - `batch` hands images to one committing thread and lets the worker go on.
///   The thread commits what has gathered when ``batchLimit`` images wait or
///   ``maximumDelay`` after the first, whichever comes first: it flushes the
///   outputs' data (one `syncfs` of their file system for the whole batch, see
///   `OutputDirectory.flush(_ batch:)`) before any is named, so a
///   named output is always whole; puts them in place; appends their records in
///   one write; and flushes their directories and the journal once for the batch.
///
/// A crash loses at most the images not yet committed; `kiln resume` redoes them
/// (an output in place without its record is recognized as this very work).
// Unchecked: every mutable member is guarded by `condition` (an NSCondition: a pthread mutex TSan sees).
final class GroupCommit: @unchecked Sendable {
    /// The most images committed together.
    static let maximumBatch = 128
    /// The longest an image waits for its commit.
    static let maximumDelay = 0.1
    /// The most images waiting before a worker waits too (memory and open files stay bounded).
    static let maximumWaiting = 4 * maximumBatch

    /// The most images committed together by this commit: ``maximumBatch``, or
    /// half the staged outputs the open-file limit leaves room for.
    let batchLimit: Int
    /// The most images waiting before a worker waits too: each holds its staged
    /// output open, so waiting and committing images together stay within the
    /// open-file budget given at creation.
    let waitingLimit: Int

    private let durability: Durability
    private let output: OutputDirectory
    private let journal: Journal?
    private let critical: @Sendable (String, () throws -> Void) throws -> Void
    /// Stops the job, with the reason (a full disk: see ``StoppingFailure``).
    private let stop: @Sendable (String) -> Void
    // A lock with a condition: the committer thread waits for work or a deadline; TSan sees its pthread mutex.
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var waiting: [FinishedImage] = []
    private var firstWaitingSince = 0.0
    private var closed = false
    // Signalled once by the committer thread as it ends, so `close` can wait for the last flush.
    private let finished = DispatchSemaphore(value: 0)

    /// A commit for one job run; `critical` wraps each commit (a task's critical
    /// work); `stagedFiles` is how many staged outputs may be open at once (see
    /// ``OpenFiles/stagingBudget(workers:)``).
    init(durability: Durability, output: OutputDirectory, journal: Journal?,
         critical: @escaping @Sendable (String, () throws -> Void) throws -> Void,
         stop: @escaping @Sendable (String) -> Void = { _ in },
         stagedFiles: Int = OpenFiles.stagingBudget(workers: 1)) {
        batchLimit = max(1, min(Self.maximumBatch, stagedFiles / 2))
        waitingLimit = max(1, min(Self.maximumWaiting, stagedFiles - batchLimit))
        self.durability = durability
        self.output = output
        self.journal = journal
        self.critical = critical
        self.stop = stop
        if durability == .batch {
            let thread = Thread { [self] in
                commitUntilClosed()
                finished.signal()
            }
            thread.name = "kiln group commit"
            thread.start()
        }
    }

    /// How the worker stages an output for this durability.
    var stagingFlush: StagedOutput.Flush {
        switch durability {
        case .full: return .now
        case .batch: return .later
        case .none: return .never
        }
    }

    /// Commits `image` (at once, or with its batch) and then delivers it. Safe from any thread.
    func submit(_ image: FinishedImage) {
        guard durability == .batch else { return commit([image], flushJournal: durability == .full) }
        condition.lock()
        while waiting.count >= waitingLimit && !closed { condition.wait() }
        if waiting.isEmpty { firstWaitingSince = Self.now }
        waiting.append(image)
        // The committing thread needs waking only for a first image (it may wait without a
        // deadline) or a full batch; otherwise its timed wait ends when the batch is due.
        if waiting.count == 1 || waiting.count == batchLimit { condition.broadcast() }
        condition.unlock()
    }

    /// Commits what waits and stops the committing thread; returns when every
    /// submitted image is delivered.
    func close() {
        guard durability == .batch else { return }
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
        finished.wait()
    }

    private func commitUntilClosed() {
        while let batch = nextBatch() {
            commit(batch, flushJournal: true)
        }
    }

    /// The next batch, once it is due; nil when closed with nothing left.
    private func nextBatch() -> [FinishedImage]? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if waiting.isEmpty {
                if closed { return nil }
                condition.wait()
                continue
            }
            let due = firstWaitingSince + Self.maximumDelay
            if closed || waiting.count >= batchLimit || Self.now >= due {
                let batch = Array(waiting.prefix(batchLimit))
                waiting.removeFirst(batch.count)
                firstWaitingSince = Self.now
                condition.broadcast()  // workers waiting for room
                return batch
            }
            _ = condition.wait(until: Date(timeIntervalSinceNow: due - Self.now))
        }
    }

    /// Puts the batch's outputs in place and records them, then delivers every image.
    ///
    /// On a full (or read-only, or over-quota) disk, or a journal that cannot be written, the job stops: an image whose
    /// output could not be put in place or whose record could not be written is
    /// not delivered (neither counted nor reported: the summary agrees with the
    /// journal) and is left for resume, which redoes it — or, for an output in
    /// place without its record, recognizes it as this very work.
    private func commit(_ batch: [FinishedImage], flushJournal: Bool) {
        var batch = batch
        var undelivered = Set<Int>()
        let written = batch.filter { $0.staged != nil }.count
        do {
            try critical(written == 0 ? "record \(batch.count) results" : "commit \(written) outputs") {
                undelivered = placeOutputs(&batch)
                let pending = batch.indices.filter { !batch[$0].recorded && !undelivered.contains($0) }
                guard let journal, !pending.isEmpty else { return }
                do {
                    try journal.append(pending.map { batch[$0].record }, flush: false)
                    if durability == .batch {
                        // The names first, then the records that point at them.
                        output.flushDirectories(of: pending.filter { batch[$0].result.status == .written }
                            .map { batch[$0].record.output })
                    }
                    if flushJournal && durability.syncs { try journal.flush() }
                } catch {
                    // Whatever the reason, a journal that takes no record stops the job as a full disk does: every
                    // image after would fail alike, its output in place. (Before, one that refused to be written, made
                    // immutable, ran the job to its end, failing every image left, and `kiln status` counted none.)
                    stop(StoppingFailure.reason(error, in: output)
                         ?? "stopped: the job's journal cannot be written (\(error)); the images not recorded are left for "
                            + "`kiln resume \(output.path)` once it can be")
                    undelivered.formUnion(pending)
                }
            }
        } catch {
            // `critical` itself never fails (it only marks the section); nothing to undo.
        }
        for (index, image) in batch.enumerated() where !undelivered.contains(index) { image.deliver(image.result) }
    }

    /// Flushes the batch's outputs (`batch`: all at once, before any is named) and
    /// places each; one that cannot be placed fails alone. Returns the images
    /// left undelivered because the disk is full (the job is stopped then).
    private func placeOutputs(_ batch: inout [FinishedImage]) -> Set<Int> {
        var undelivered = Set<Int>()
        let staged = batch.indices.filter { batch[$0].staged != nil }
        if durability == .batch && !staged.isEmpty {
            var outputs = staged.map { batch[$0].staged! }
            do throws(OutputError) {
                try output.flush(&outputs)
            } catch {
                // Not known to be on the disk: none is named, each fails (and is redone by a later run).
                let full = StoppingFailure.reason(error, in: output)
                if let full { stop(full) }
                for (index, var file) in zip(staged, outputs) {
                    output.discard(&file)
                    batch[index].staged = nil
                    if full != nil { undelivered.insert(index) } else { batch[index].fail("\(error)") }
                }
                return undelivered
            }
            // The flush closed what it could: the batch holds the files as they are now.
            for (index, file) in zip(staged, outputs) { batch[index].staged = file }
        }
        for index in staged {
            guard var file = batch[index].staged else { continue }
            batch[index].staged = nil
            do throws(OutputError) {
                try output.place(file, at: batch[index].record.output, replace: batch[index].replace)
            } catch {
                output.discard(&file)
                if let full = StoppingFailure.reason(error, in: output) {
                    stop(full)
                    undelivered.insert(index)
                } else {
                    batch[index].fail("\(error)")
                }
            }
        }
        return undelivered
    }

    private static var now: Double { ProcessInfo.processInfo.systemUptime }
}
