import Color
import Compute
import Foundation
import ImageCore
import Locking
import Render
import Synchronization

/// Runs a planned batch: for each item, decode → render → encode → atomic
/// write → journal record, on `options.jobs` workers at once.
///
/// Each worker holds one image at a time, streamed in strips, and starts it
/// only when its estimated working set fits the job's `MemoryBudget`, so
/// memory stays within `--memory` however long the batch is. A failure is
/// confined to its item: it is reported and the batch goes on.
///
/// Stopping has two steps. ``finishInFlight()`` stops taking new images and
/// lets the images in hand finish (what an expiring task does within its
/// grace); ``stop()`` abandons them too: workers check it between stages and
/// leave the image in hand for `kiln resume`. A write already under way
/// completes, inside a critical section, with its journal record.
public final class ExportJob: Sendable {
    /// The job's options.
    public let options: ExportOptions
    /// What to export, in order (including items finished by an earlier run).
    public let items: [ExportItem]
    /// Where outputs go.
    public let output: OutputDirectory
    private let renderer: Renderer

    /// What crossed the host/device boundary for this job so far (``Renderer/traffic``).
    public var deviceTraffic: DeviceTraffic { renderer.traffic }
    /// Converts outputs to the plan's colour profile, when it names one.
    private let colorConverter: ColorConverter?
    /// Converts to sRGB the images whose profile is dropped (by `--keep` without
    /// `icc`, or a gray profile an output cannot describe) when that profile is
    /// not sRGB: dropped as they are, their colours would change in every viewer
    /// (`vips` and `sharp` convert too when they strip). Nil under `--profile`.
    private let toSRGB: ColorConverter?
    private let journal: Journal?
    /// Admits images by their working set (`--memory`).
    public let memory: MemoryBudget
    /// How durably finished images are committed before they are reported.
    public let durability: Durability
    private let finishedBefore: [String: FinishedRecord]
    private let earlierRecords: [String: FinishedRecord]
    /// The output folder as the user named it (see ``init``); nil: the path the job opens.
    private let shownOutputDirectory: String?
    /// What the user's cache kept of this folder's last clean run (``MadeCache``): hints (one of other options is a conflict).
    private let madeHints: [String: FinishedRecord]
    /// What the folder's other journals record (``ShardLayout/otherJournalsRecords(in:besides:)``), read the first
    /// time an output with no record of this job's is met: hints as the cache's.
    private let otherJournals: (@Sendable () -> [String: [FinishedRecord]])?
    // Locked: read once, by whichever worker meets such an output first.
    private let otherJournalsRead = Locked<[String: [FinishedRecord]]?>(nil)
    /// Outputs this job recorded as written that no longer match their record (lost writes): redone, replacing them.
    private let lostWrites: Set<String>
    /// The whole plan's digest (``Provenance/digest(of:)``): what kiln recorded before it recorded the work as it
    /// bears on each output's format, still taken as this work's.
    private let planDigest: String
    /// The plan's digest as it bears on an output of each format (``Provenance/digest(of:writing:)``): recorded.
    private let formatDigests: [ImageFormat: String]
    /// The digest the plan had before kiln kept the bytes of the files it names (``ExportPlan/files``); nil where
    /// it names none. An output recorded under it was made by an earlier kiln, which cannot say whether those files
    /// changed since: a conflict, said as that.
    private let unfingerprintedDigest: String?
    private let leftSmaller = Atomic<Int>(0)
    private let state: Locked<Counts>
    private let stopRequested = Atomic<Bool>(false)
    private let drainRequested = Atomic<Bool>(false)
    private let pauseRequested = Atomic<Bool>(false)
    /// The time the job spent paused, which its rates and estimates leave out.
    public let pauses = PauseClock()
    private let tracker = Locked<JobProgress?>(nil)
    /// The inputs of the images in the workers' hands.
    private let inHand = Locked<Set<String>>([])
    /// The inputs of the images the memory budget let in, still rendering or encoding, in the order let in: the
    /// last is ``Counts/current``. An image waiting for memory is not worked on (the bar named a small one waiting
    /// for 4-7 s while a giant was the only one at work).
    private let admitted = Locked<[String]>([])
    /// The fraction earlier runs reached: where this run's progress starts.
    private let progressBefore: Double
    /// The totals earlier runs left (a resume counts them as done, but did not do them).
    public let earlier: Counts
    private let stopReason = Locked<String?>(nil)
    /// Notable metadata drops already reported: each is said once per job.
    private let reportedDrops = Locked<Set<String>>([])
    /// The identities of the inputs, gathered the first time an output path is
    /// found occupied (a fresh output directory never needs them).
    private let inputIdentities = Locked<Set<FileIdentity>?>(nil)

    /// Running totals of a job, safe to read while it runs.
    public struct Counts: Sendable, Equatable {
        /// Items finished (written, skipped or failed), including earlier runs'.
        public var completed = 0
        /// Outputs written.
        public var written = 0
        /// Outputs skipped because they existed as this very work.
        public var skipped = 0
        /// Outputs kept because they existed but were made otherwise (see ``FileResult/Status/conflict``).
        public var conflicts = 0
        /// Items that failed.
        public var failed = 0
        /// Images started by this run whose result is not delivered yet: in the workers' hands or waiting for
        /// their commit, each still to come as a result (the `stopping` event's `inFlight`: those waiting for their
        /// commit were left out, and more `file` events came than it said).
        public var inFlight = 0
        /// The input being worked on most recently: of those the memory budget let in, the last let in; else the
        /// last taken while none was; nil once it is done and no other is at work.
        public var current: String?

        /// No item finished yet.
        public init() {}

        /// These totals less `earlier` ones (e.g. what this run did, less what earlier runs had done).
        public func since(_ earlier: Counts) -> Counts {
            var counts = self
            counts.completed -= earlier.completed
            counts.written -= earlier.written
            counts.skipped -= earlier.skipped
            counts.failed -= earlier.failed
            counts.conflicts -= earlier.conflicts
            return counts
        }
    }

    /// Hooks through which the job talks to whoever runs it.
    public struct Hooks: Sendable {
        /// Called once per item finished by this run, from worker threads.
        public var onResult: @Sendable (FileResult) -> Void = { _ in }
        /// Runs work that must not be cut short by a stop (rename + journal record);
        /// a continued-processing task passes its critical-work section here.
        public var critical: @Sendable (String, () throws -> Void) throws -> Void = { _, body in try body() }
        /// Test hook: after this many items, workers stop making progress (but still honour stops).
        public var stallAfter: Int?
        /// Test hook: ends the stall of ``stallAfter`` once a file exists at this path, so a test can change
        /// the world at a known point of the job (`KILN_TEST_STALL_RELEASE`).
        public var stallRelease: String?
        /// Test hook: once an input is open (its header read, nothing decoded), the worker adds a byte
        /// to `<decodePause>.paused` and waits until a file exists at `decodePause`, so a test can
        /// rewrite the input while it is being read, or count the images in flight (`KILN_TEST_PAUSE_DECODE`).
        public var decodePause: String?

        /// Default hooks.
        public init() {}

        /// These hooks with `critical` replaced.
        public func criticalWork(_ critical: @escaping @Sendable (String, () throws -> Void) throws -> Void) -> Hooks {
            var hooks = self
            hooks.critical = critical
            return hooks
        }
    }

    /// A job over `items`. Items recorded in `finishedBefore` (from the journal,
    /// already verified) are counted as done and not redone. `earlierRecords`
    /// is what the folder's journal said before this run (any job's): it tells
    /// an existing output made by this very work from one made otherwise.
    /// `madeHints` are the records ``MadeCache`` kept for the folder when its
    /// last clean run removed the journal: an output matching its hint in size,
    /// CRC-32 and provenance is skipped unread; any other is made again and compared.
    /// `otherJournals` reads the records of the folder's other journals, hints alike.
    /// `lostWrites` are outputs this very job recorded as written whose bytes no
    /// longer match the record (see ``Journal/verify(in:)``): they are redone and replaced.
    /// `durability` says how finished images are committed (see ``Durability``).
    /// `progressBefore` is the part of the fraction in the images the job's last run finished (its live
    /// status), where this run's progress continues; without it, the share of items finished. `shownOutputDirectory`:
    /// the output folder as the user named it, where that is not the path the job opens (a resume
    /// opens it from the root); reports name outputs under it.
    public init(options: ExportOptions, items: [ExportItem], output: OutputDirectory, renderer: Renderer,
                journal: Journal? = nil, finishedBefore: [String: FinishedRecord] = [:],
                earlierRecords: [String: FinishedRecord] = [:], madeHints: [String: FinishedRecord] = [:],
                otherJournals: (@Sendable () -> [String: [FinishedRecord]])? = nil, lostWrites: Set<String> = [],
                durability: Durability = .batch, memory: MemoryBudget = MemoryBudget(limit: MemoryLimit.defaultBudget),
                progressBefore: Double? = nil, shownOutputDirectory: String? = nil) {
        self.shownOutputDirectory = shownOutputDirectory
        self.options = options
        self.lostWrites = lostWrites
        self.durability = durability
        self.memory = memory
        self.earlierRecords = earlierRecords
        self.madeHints = madeHints
        self.otherJournals = otherJournals
        planDigest = Provenance.digest(of: options.plan)
        formatDigests = Dictionary(uniqueKeysWithValues: [ImageFormat.png, .jpeg, .webp].map {
            ($0, Provenance.digest(of: options.plan, writing: $0))
        })
        var unfingerprinted = options.plan
        unfingerprinted.files = []
        unfingerprintedDigest = options.plan.files.isEmpty ? nil : Provenance.digest(of: unfingerprinted)
        self.items = items
        self.output = output
        self.renderer = renderer
        // The CLI checked the profiles before the job started; a profile that
        // vanished since (e.g. on resume) leaves colours as they are.
        self.colorConverter = options.plan.color.flatMap { try? ColorConverter($0) }
        self.toSRGB = options.plan.color == nil ? try? ColorConverter(ColorConversion(target: .srgb)) : nil
        self.journal = journal
        self.finishedBefore = finishedBefore
        var counts = Counts()
        for item in items {
            guard let record = finishedBefore[item.output] else { continue }
            counts.completed += 1
            switch record.status {
            case .written: counts.written += 1
            case .skipped: counts.skipped += 1
            case .conflict: counts.conflicts += 1
            case .failed: counts.failed += 1
            }
        }
        earlier = counts
        state = Locked(counts)
        // The stopped run's finished fraction, also when it finished no image (before, such a resume started
        // at 0, below the fraction `kiln status` showed: one giant image stopped at 73 % resumed at 0).
        self.progressBefore = progressBefore ?? Double(counts.completed) / Double(max(1, items.count))
    }

    /// The totals so far.
    public var counts: Counts { state.withLock { $0 } }

    /// The totals and the fraction done (weighted by pixels) as one consistent
    /// snapshot: the fraction always includes every item the counts call finished.
    public var snapshot: (counts: Counts, fraction: Double) {
        // Counts first: an item is marked done in the progress before it is counted.
        let counts = self.counts
        return (counts, tracker.withLock { $0?.fraction } ?? progressBefore)
    }

    /// The part of the fraction in images finished (see ``JobProgress/finishedFraction``).
    public var finishedFraction: Double { tracker.withLock { $0?.finishedFraction } ?? progressBefore }

    /// Input pixels per unit of the job's fraction (this run's pixels over its share of the job), to
    /// tell a rate of the fraction in pixels per second; 0 before the run has read its headers.
    public var pixelsPerFraction: Double {
        tracker.withLock { $0.map { Double($0.pixels) / max($0.share, 1e-9) } } ?? 0
    }

    /// The seconds the work left needs, the images in hand at their own pace and the rest with
    /// the job's fraction moving by `rate` a second (``JobProgress/secondsLeftInHand(rate:)``):
    /// the ETA's floor.
    public func secondsLeftInHand(rate: Double) -> Double {
        tracker.withLock { $0.map { $0.secondsLeftInHand(rate: rate) } } ?? 0
    }

    /// The inputs of the images being decoded, rendered or encoded now (not those waiting for their commit).
    public var imagesInHand: [String] { inHand.withLock { $0.sorted() } }

    /// The items this run still has to do.
    public var remaining: [ExportItem] { items.filter { finishedBefore[$0.output] == nil } }

    /// Abandons the images in hand after the stage under way (and takes no new one).
    /// Safe from any thread, any number of times.
    public func stop() {
        stopRequested.store(true, ordering: .relaxed)
    }

    /// Stops as ``stop()`` does, saying why (the first reason given is kept: see ``stoppedBecause``).
    func stop(because reason: String) {
        stopReason.withLock { $0 = $0 ?? reason }
        stop()
    }

    /// Takes no new image; the images in hand finish. Safe from any thread, any number of times.
    public func finishInFlight() {
        drainRequested.store(true, ordering: .relaxed)
    }

    /// Whether the job takes no new image: it is stopping (``finishInFlight()`` or ``stop()`` was called).
    public var isStopping: Bool { !takesNewImages }

    /// Whether workers may start another image.
    private var takesNewImages: Bool { !drainRequested.load(ordering: .relaxed) && !isStopped }

    /// Holds the workers (`true`: a person paused the job) or lets them go on (`false`): while paused,
    /// no image is started and the images in hand wait before their next strip. ``finishInFlight()`` and
    /// ``stop()`` let them go at once. Safe from any thread, any number of times.
    public func setPaused(_ paused: Bool) {
        pauseRequested.store(paused, ordering: .relaxed)
        pauses.set(.view, paused: paused)
    }

    /// Whether the job is paused (``setPaused(_:)``).
    public var isPaused: Bool { pauseRequested.load(ordering: .relaxed) }

    /// Waits while the job is paused and still takes new images.
    private func waitWhilePaused() {
        while isPaused && takesNewImages { usleep(20_000) }
    }

    /// Whether ``stop()`` was called or the job stopped itself (see ``stoppedBecause``).
    public var isStopped: Bool { stopRequested.load(ordering: .relaxed) }

    /// Why the job stopped on its own before the end (the required GPU failed, the disk is full), if it did.
    public var stoppedBecause: String? { stopReason.withLock { $0 } }

    /// Images this run wrote that the resize left smaller than its box on every given axis,
    /// because it never enlarges without `--upscale` (not those a stop abandoned).
    public var imagesLeftSmallerThanTheBox: Int { leftSmaller.load(ordering: .relaxed) }

    /// Whether every item is finished.
    public var isComplete: Bool { counts.completed == items.count }

    /// Processes the remaining items until done or stopped, blocking until the
    /// workers finish and every finished image is committed, reporting into
    /// `progress` (weighted by what each stage of each image costs). Returns the totals.
    ///
    /// Before the workers start, every input's header is read (``plannedCosts(of:progress:)``),
    /// so that the weights are known before the first progress is shown.
    @discardableResult
    public func run(progress: Progress = Progress(totalUnitCount: 1), hooks: Hooks = Hooks()) -> Counts {
        let work = remaining
        let (costs, pixels) = plannedCosts(of: work, progress: progress)
        // No more workers than images the budget could ever hold at once (each at least two overheads: a
        // worker waiting for its admission has read its input and opened its decoder already). Measured
        // (release build) under --memory 110M with 60 small images: --jobs 2, 8, 64 peaked at 99, 108,
        // 115 MB (64 was 168 MB before, as every worker held its input and decoder while it waited).
        let affordable = max(1, (memory.limit - memory.reserved) / (2 * Self.imageOverhead))
        let workers = max(1, min(options.jobs, work.count, affordable))
        let tracker = JobProgress(root: progress, costs: costs, pixels: pixels, base: progressBefore,
                                  workers: workers,
                                  cores: CPUThreads.cores)
        self.tracker.withLock { $0 = tracker }
        let commit = GroupCommit(durability: options.inPlace ? .full : durability, output: output, journal: journal,
                                 critical: hooks.critical, stop: { [self] in stop(because: $0) },
                                 stagedFiles: OpenFiles.stagingBudget(workers: workers))
        let next = Atomic<Int>(0)
        // Images the workers are done with (committed or waiting for their commit), for the stall hook.
        let handedOver = Atomic<Int>(earlier.completed)
        // One worker per --jobs image at once, each taking the next image until none is left.
        @Sendable func worker() {
            while takesNewImages {
                if isPaused {
                    waitWhilePaused()
                    continue
                }
                if let limit = hooks.stallAfter, handedOver.load(ordering: .relaxed) >= limit, !released(hooks) {
                    stallWhileTakingImages(hooks)
                    continue
                }
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < work.count else { return }
                // The lists' lock, then the counts' (as everywhere): the name shown follows one order of events.
                admitted.withLock { admitted in
                    state.withLock {
                        if admitted.isEmpty { $0.current = work[index].input }
                        $0.inFlight += 1
                    }
                }
                inHand.withLock { _ = $0.insert(work[index].input) }
                let progressItem = tracker.begin(index)
                let deliver: @Sendable (FileResult) -> Void = { [self] result in
                    tracker.finish(progressItem)
                    count(result)
                    hooks.onResult(result)
                    // After its result is out: a stop read meanwhile may count it once more, never one less.
                    state.withLock { $0.inFlight -= 1 }
                }
                let finished = process(work[index], tracker: tracker, item: progressItem, staging: commit.stagingFlush,
                                       hooks: hooks, deliver: deliver)
                inHand.withLock { _ = $0.remove(work[index].input) }
                guard let finished else {
                    state.withLock { $0.inFlight -= 1 }  // stopped before its end: no result comes
                    return
                }
                tracker.handOver(progressItem)
                handedOver.add(1, ordering: .relaxed)
                commit.submit(finished)
            }
        }
        // Threads of their own, not `concurrentPerform`: libdispatch runs that no wider than the cores, so
        // `--jobs 4` on 2 cores had 2 images in flight, the other two workers starting once none was left.
        let done = DispatchGroup()
        for _ in 1..<workers {
            done.enter()
            Thread.detachNewThread {
                worker()
                done.leave()
            }
        }
        worker()
        done.wait()
        commit.close()
        return counts
    }

    /// What each item of `work` will cost, by stage, and their input pixels, from their headers and
    /// sizes: an `open`, a read of the file's first bytes and a `stat` each (BENCHMARKS.md). An input
    /// whose header cannot be read costs what opening it does: it fails when its turn comes.
    /// Reading them is a stage of its own: `progress` moves every 256 headers (by
    /// ``JobProgress/planningShare`` in all), so the watchdog sees it on a slow file system.
    private func plannedCosts(of work: [ExportItem], progress: Progress) -> ([StageCost], Int) {
        var pixels = 0
        let costs = work.enumerated().map { index, item -> StageCost in
            if index % 256 == 0 { JobProgress.showPlanning(on: progress, base: progressBefore, done: index, of: work.count) }
            var file = stat()
            // An image over --max-pixels fails at its header: it costs no more than an unreadable one, and its
            // size (a PNG may declare 2^31 - 1 each way) would overflow the sums below.
            guard item.problem == nil, !isStopped, let header = try? ImageCodecs.header(contentsOf: item.input),
                  header.width * header.height <= options.maxPixels,
                  let size = try? renderer.outputSize(of: header), stat(item.input, &file) == 0 else { return .unreadable }
            pixels += header.width * header.height
            return .estimate(header: header, fileBytes: Int(file.st_size), plan: options.plan,
                             output: outputFormat(for: item, input: header.format), outputPixels: size.width * size.height)
        }
        return (costs, pixels)
    }

    /// Counts a result once it is committed.
    private func count(_ result: FileResult) {
        if result.status == .written && result.keptItsSize { leftSmaller.add(1, ordering: .relaxed) }
        state.withLock { counts in
            counts.completed += 1
            switch result.status {
            case .written: counts.written += 1
            case .skipped: counts.skipped += 1
            case .conflict: counts.conflicts += 1
            case .failed: counts.failed += 1
            }
        }
    }

    /// The orientation tag `--no-autorotate` left unapplied, dropped with the EXIF (`--strip`, `--keep`):
    /// the output then shows as stored, turned or mirrored, which the job says once.
    private func unturned(_ metadata: ImageMetadata) -> [DroppedMetadata] {
        guard !options.plan.autorotate, metadata.orientation != 1, !options.plan.metadata.contains(.exif) else { return [] }
        return [DroppedMetadata(type: "EXIF orientation", reason: "neither applied (--no-autorotate) nor kept (the EXIF is "
                                + "not: --strip or --keep), so viewers show the output as stored, turned or mirrored",
                                isNotable: true)]
    }

    /// Warnings for one image: every damaged chunk the decoder left out, and
    /// each notable drop (a colour profile that no longer fits) the first time
    /// this job meets it.
    private func metadataWarnings(_ metadata: ImageMetadata, _ dropped: [DroppedMetadata], input: String) -> [String] {
        var warnings = metadata.warnings.map { "\(input): \($0)" }
        for drop in dropped where drop.isNotable {
            let first = reportedDrops.withLock { $0.insert(drop.description).inserted }
            if first { warnings.append("\(input): \(drop) (said once: later images alike are treated the same)") }
        }
        return warnings
    }

    /// Colours a file defines in terms kiln builds no profile from (PNG's cICP when HDR, narrow-range or of a
    /// YCbCr matrix), where not sRGB's: said where the output does not carry them (before, silently), or where
    /// `--profile` converted the pixels as if they were sRGB.
    private func unconvertedColour(_ metadata: ImageMetadata, format: ImageFormat, keep: MetadataSelection) -> [DroppedMetadata] {
        guard let colour = metadata.colourWithoutProfile else { return [] }
        if colorConverter != nil {
            return [DroppedMetadata(type: colour, reason: "kiln cannot convert from these, so --profile "
                                    + "converted these pixels as if they were sRGB", isNotable: true)]
        }
        guard format != .png || !keep.contains(.icc) else { return [] }
        return [DroppedMetadata(type: colour, reason: "kiln cannot convert from these, and this output does not keep "
                                + "them: the pixels are written as they are, and may look otherwise", isNotable: true)]
    }

    private func stallWhileTakingImages(_ hooks: Hooks) {
        while takesNewImages && !released(hooks) { usleep(20_000) }
    }

    /// The ``Hooks/decodePause`` hook: says it is reached, then waits for its release (or a stop).
    private func pauseDecoding(until release: String) {
        // One byte per image paused: a test counts the images in flight by the mark's size.
        let mark = open(release + ".paused", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        _ = write(mark, "+", 1)
        close(mark)
        while !isStopped && access(release, F_OK) != 0 { usleep(5_000) }
    }

    /// Whether the test's release file for a stall exists.
    private func released(_ hooks: Hooks) -> Bool {
        hooks.stallRelease.map { access($0, F_OK) == 0 } ?? false
    }

    /// The finished item, to be committed, or nil when the job stopped before finishing it.
    private func process(_ item: ExportItem, tracker: JobProgress, item progressItem: JobProgress.Item,
                         staging: StagedOutput.Flush, hooks: Hooks,
                         deliver: @escaping @Sendable (FileResult) -> Void) -> FinishedImage? {
        let destination = output.url(of: item.output)
        var result = FileResult(input: item.input, output: shown(item.output), status: .failed)
        var record = FinishedRecord(output: item.output, status: .failed, size: 0, crc32: 0, error: nil)
        // At most one lstat of the output path (none in a fresh directory); only an occupied one needs more.
        let occupied = !options.inPlace && !output.startedEmpty && output.exists(item.output)
        // What made the output: the input's stat, from the read that decodes it when it is read now; an
        // occupied output is judged before the input is read (identical work is skipped unread).
        var source = occupied ? nil : InputFile(path: item.input)
        // Which file that is, as it is (the user cache's records stand for it alone: `MadeCache`).
        let inputFile = source?.version ?? FileVersion(path: item.input)
        let made = inputFile.map { Provenance(input: $0, plan: digest(for: item)) }
        // A lost write of this job is its own output, damaged: it is made again, not kept as a conflict.
        let replace = options.overwrite || lostWrites.contains(item.output)
        let existing = options.inPlace ? replacedEarlier(item)
            : replace || !occupied ? .absent : existingOutput(item, made: made, inputFile: inputFile)
        if let problem = item.problem {
            result.error = problem
        } else if occupied, let present = FileIdentity(entryAt: destination), isInput(present) {
            // What sits there, a link not followed: the output replaces a link, never its target (a link to another
            // input was refused as "an input" itself, --overwrite or not).
            result.error = "its output \(shown(item.output)) is an input; inputs are never overwritten"
        } else if case .identical(let earlier) = existing {
            result.status = .skipped
            record = earlier  // carries what made it, so the next run knows it too
        } else if case .conflict(let reason, let madeBy) = existing {
            result.status = .conflict
            result.error = reason
            if let madeBy { record = madeBy }
        } else {
            do {
                // A small input is read once, whole, and decoded from memory; a large one is streamed.
                let limits = DecodingLimits(maxPixels: options.maxPixels)
                if source == nil { source = InputFile(path: item.input) }
                let whole = source?.bytes
                let open = {
                    let reader = try ImageCodecs.reader(path: item.input, bytes: whole, limits: limits)
                    // A progressive JPEG is read whole before its first row: that is progress too (the watchdog
                    // stopped a 300 MPix one that worked, 3.5 s with none, under --stall-timeout 2).
                    reader.observeFirstRead { tracker.advance(progressItem, readingFirst: $0) }
                    // A CMYK JPEG under --profile: converted straight into the target as it is decoded.
                    if let converter = self.colorConverter { try ImageCodecs.convertCMYK(of: reader, into: converter) }
                    return reader
                }
                let reader = try open()
                // In place the file is the only copy: writing its default image over it would lose its frames (an
                // animated WebP is refused by its reader; an APNG lost its animation with a warning, exit 0).
                if options.inPlace && reader.leadingMetadata.dropsAnimation { throw InPlaceAnimation() }
                if let pause = hooks.decodePause { pauseDecoding(until: pause) }
                // The EXIF orientation is applied first (SPEC §4.1) when the file states it before
                // its pixels (PNG: an eXIf before IDAT, where the specification puts it).
                let orientation = options.plan.autorotate ? reader.leadingMetadata.orientation : 1
                // Shrink-on-load (JPEG's DCT scaling) when the operations start with a resize: the
                // decoder keeps at least what the resize makes, then the resize does the rest.
                let least = minimumSource(of: reader.header, orientation: orientation)
                let reopen = {
                    let reader = try open()
                    if let least { _ = try reader.reduce(toAtLeast: least.width, least.height) }
                    return reader
                }
                if let least { _ = try reader.reduce(toAtLeast: least.width, least.height) }
                // Written in the format `--format` names, else the one the output's name says (in
                // place: the input's own, by content).
                let codec = outputCodec(for: item, input: reader.header.format)
                // A converted image is always tagged with its new profile.
                let keep = colorConverter == nil ? options.plan.metadata : options.plan.metadata.union(.icc)
                var settings = options.plan.output.writeSettings(level: options.plan.level, keep: keep, time: options.started)
                if codec.format == .webp, options.plan.writesLosslessWebP(of: reader.header) { settings.lossless = true }
                // A profile about to be dropped that is not sRGB: its colours are converted to sRGB first. Dropped by
                // --keep without icc, or, for a gray one, by WebP, which is RGB: before, its pixels were written as they
                // were, 5 levels off in the shadows (Gray 2.2). A gray profile converts gray rows only (from an RGB
                // image's, it would read one channel): those are left as they are.
                let content = rowContent(of: reader.header)
                // A gray profile on gray pixels a watermark, or a JPEG's colour --background under alpha, makes colour can
                // neither tag nor convert them: an RGB profile that shows its neutrals as it does takes its place
                // (before, it was dropped with a warning, and the grays kept values only it explained). One built
                // from a PNG's chunks replaces them too: a cHRM or cICP of other primaries than sRGB's would say
                // other colours of the colour pixels than the profile does.
                let madeColour = reader.header.isGray
                    && (!content.gray || (codec.format == .jpeg && content.alpha && !settings.background.isNeutral))
                let colourForGray = madeColour ? reader.leadingMetadata.colorProfile?.rgbFromGray : nil
                let profile = colourForGray ?? reader.leadingMetadata.colorProfile
                let builtFrom = reader.leadingMetadata.profileBuiltFrom
                let untagged = !keep.contains(.icc)
                let takeColourProfile = { (metadata: inout ImageMetadata) in
                    if let colourForGray { metadata.replaceColorProfile(with: colourForGray) }
                }
                // Untagged, an output's colours are sRGB (what a profile dropped said is converted to sRGB first): its
                // EXIF says so. A dropped sRGB chunk or profile left "Adobe RGB" (R03) beside pixels it no longer
                // defined, which DCF readers, and kiln, then read as Adobe RGB. Said after a conversion's retagging,
                // which named the profile it converted into, kept nowhere ("sRGB built-in", lcms2's name).
                let describeUntagged = { (metadata: inout ImageMetadata) in
                    if untagged { metadata.describeColours(sRGB: true, profileName: "sRGB IEC61966-2.1") }
                }
                let grayProfile = profile?.colorSpace == "GRAY"
                let grayCannotStay = grayProfile && content.gray && codec.format == .webp
                let dropping = toSRGB != nil && (!grayProfile || content.gray)
                    && (!options.plan.metadata.contains(.icc) || grayCannotStay)
                let dropped = dropping ? profile.flatMap { ColorConverter.changesColoursWhenDropped($0) ? $0 : nil } : nil
                let converter = colorConverter ?? (dropped == nil ? nil : toSRGB)
                // A writer that streams chooses its file's layout before the first row, from what
                // the rows can hold; a colour conversion may make gray rows coloured.
                settings.content = content
                // Gray rows converted to sRGB for a profile --keep drops stay gray (untagged, nothing is lost); tagged with
                // an RGB profile (--profile, WebP), they cannot.
                if let converter, !(content.gray && !keep.contains(.icc) && converter.keepsGrayRowsGray(under: profile)) {
                    settings.content?.gray = false
                }
                // Nor is a file written gray when it keeps an RGB profile (after --grayscale): a gray file
                // cannot carry it, and its pixels would be shown untagged, otherwise than the source. A PNG
                // output whose profile was built from gAMA and cHRM keeps those chunks, which a gray file carries.
                let carriesChunks = codec.format == .png && reader.leadingMetadata.carried?.format == .png
                    && !(reader.leadingMetadata.carried?.blocks.contains { $0.type == "iCCP" } ?? false)
                if keep.contains(.icc), let space = reader.leadingMetadata.colorProfile?.colorSpace, space != "GRAY",
                   !carriesChunks {
                    settings.content?.gray = false
                }
                // Admitted by the memory budget before anything image-sized exists (SPEC §8):
                // what its render schedule holds and what the writer holds.
                let size = try renderer.outputSize(of: reader.header, orientation: orientation)
                try codec.checkSize(width: size.width, height: size.height)
                let working = try renderer.workingSet(of: reader.header, orientation: orientation) + reader.header.heldInputBytes
                // What the budget leaves the writer, beyond streaming, when this image runs alone: a JPEG streams with
                // standard tables rather than hold coefficients that would not fit (they only make the file smaller).
                // Beyond streaming: the coefficients were weighed against all the writer's room, its output's bytes
                // then overran it, and an 8000×6000 JPEG failed under --memory 240M-280M where 230M wrote it.
                settings.heldBytesLimit = 0
                let streaming = codec.writerBytes(width: size.width, height: size.height, depth: reader.depth, settings: settings)
                settings.heldBytesLimit = max(0, memory.limit - memory.reserved - working - Self.imageOverhead - streaming)
                let needed = working + codec.writerBytes(width: size.width, height: size.height, depth: reader.depth,
                                                         settings: settings) + Self.imageOverhead
                guard try memory.admit(needed, cancelled: { self.isStopped }) else { return nil }
                defer { memory.release(needed) }
                admitted.withLock { list in
                    list.append(item.input)
                    state.withLock { $0.current = item.input }
                }
                defer {
                    // Done with: another image at work is named, or none (not one that finished).
                    admitted.withLock { list in
                        list.firstIndex(of: item.input).map { _ = list.remove(at: $0) }
                        state.withLock { if $0.current == item.input { $0.current = list.last } }
                    }
                }
                // Where the encoder writes: straight into the staged output file; into memory when
                // the file is checked (in place) or compared (an unrecorded existing output) first.
                var unrecorded = false
                if case .unrecorded = existing { unrecorded = true }
                var staged = options.inPlace || unrecorded ? nil : try output.startStaging()
                defer { if var unused = staged { output.discard(&unused) } }
                var memoryOutput = MemoryOutput()
                let file = staged.map(StagedFile.init)
                var writer: (any ImageWriter)?
                var colorWarnings: [String] = []
                var converted = false
                // A watermark is drawn in the image's colours: converted into them from its own.
                var metadata = try renderer.render(reader, orientation: orientation, colours: profile, reopen: reopen,
                                                   makeSink: { width, height, depth in
                    // Asked again when the image starts over on the CPU: the output starts over too.
                    if writer != nil {
                        try file?.restart()
                        memoryOutput = MemoryOutput()
                    }
                    let made = try codec.writer(width: width, height: height, depth: depth, settings: settings,
                                                output: file ?? memoryOutput)
                    writer = made
                    var leading = reader.leadingMetadata
                    takeColourProfile(&leading)
                    describeOrientation(of: &leading, applied: orientation, width: width, height: height)
                    // Rows converted into the output's profile on their way to the writer.
                    let conversion = converter.map { converter in
                        let (conversion, warnings) = converter.rows(depth: depth, gray: content.gray, metadata: &leading)
                        colorWarnings = warnings
                        converted = conversion != nil
                        return conversion
                    } ?? nil
                    describeUntagged(&leading)
                    if !keepsSampleValues(converted: converted) { leading.forgetSampleValues() }
                    // A writer that compresses as the rows arrive does its encode in the render stage.
                    try made.begin(metadata: leading, progress: EncodeProgress { fraction in
                        tracker.advance(progressItem, rendering: fraction)
                    })
                    return conversion.map { ConvertingSink(writer: made, conversion: $0) } ?? made
                }) { fraction in
                    tracker.advance(progressItem, rendering: fraction)
                    waitWhilePaused()  // between strips
                }
                // Decoded to its end: only an input that is still the version opened made these pixels.
                guard source?.isUnchanged() == true else { throw InputChanged() }
                guard let writer else { preconditionFailure("the renderer asked for no sink") }
                describeOrientation(of: &metadata, applied: orientation, width: writer.width, height: writer.height)
                takeColourProfile(&metadata)
                // The profile the rows were converted into, in the blocks the writer completes the file with.
                if converted { converter?.retag(&metadata) }
                describeUntagged(&metadata)
                if !keepsSampleValues(converted: converted) { metadata.forgetSampleValues() }
                // A dropped profile's conversion to sRGB, said: one built from PNG's chunks by them, once per job
                // (PngSuite gave 103 such lines); a file's own by its name, per image.
                let droppedName = reader.leadingMetadata.colorProfile?.describedName ?? ""
                var droppedProfile: [DroppedMetadata] = []
                if dropped != nil, options.plan.metadata.contains(.icc) {
                    // Kept, but WebP cannot carry a gray profile: kept as sRGB (the converter retagged it), said once per job.
                    droppedProfile = [DroppedMetadata(type: builtFrom ?? "gray ICC profile", reason: "WebP is RGB, which it cannot "
                                                      + "describe, so the pixels were converted from "
                                                      + (builtFrom == nil ? "\"\(droppedName)\"" : "what it says")
                                                      + " to sRGB and tagged sRGB", isNotable: true)]
                } else if dropped != nil, let builtFrom {
                    droppedProfile = [DroppedMetadata(type: builtFrom, reason: "--keep does not keep it, so the pixels were converted "
                                                      + "from what it says to sRGB first, and look the same without it", isNotable: true)]
                } else if dropped != nil {
                    colorWarnings.append("the ICC profile \"\(droppedName)\" is not kept (--keep), so the pixels "
                                         + "were converted from it to sRGB first: the image looks the same without it")
                }
                tracker.advance(progressItem, rendering: 1)
                let notes = try renderer.notes(of: reader.header, orientation: orientation)
                // Counted once it is written: an image abandoned by a stop is not (``count(_:)``).
                result.keptItsSize = notes.keptItsSize
                guard !isStopped else { return nil }
                let droppedMetadata = try writer.finish(metadata: metadata, progress: EncodeProgress { fraction in
                    tracker.advance(progressItem, encoding: fraction)
                })
                // Before, a watermark that missed the image (a margin wider than it) vanished without a word.
                let missed = notes.watermarkMissed
                    ? [DroppedMetadata(type: "watermark", reason: "it lies wholly outside the image (its margin is wider than "
                                       + "the image leaves): nothing of it was drawn", isNotable: true)] : []
                result.warnings = metadataWarnings(metadata, droppedMetadata + unturned(metadata)
                                                   + unconvertedColour(metadata, format: codec.format, keep: keep) + missed
                                                   + droppedProfile,
                                                   input: item.input)
                    + colorWarnings.map { "\(item.input): \($0)" }
                guard !isStopped else { return nil }
                if options.inPlace {
                    let bytes = memoryOutput.bytes
                    record = FinishedRecord(output: item.output, status: .written, size: bytes.count,
                                            crc32: CRC32.checksum(bytes), error: nil, made: made)
                    // Only an output that decodes back, whole, replaces its input; the journal
                    // records it before the rename, so a resume tells done from not done by checksum.
                    let check = try codec.reader(bytes: bytes, limits: limits)
                    _ = try check.readAll()
                    _ = try check.finish()
                    guard check.width == writer.width, check.height == writer.height else { throw OutputError.unverified }
                    try hooks.critical("replace \(item.input)") {
                        try InPlaceReplacement.replace(destination, with: bytes) {
                            // The last moment the input can still be kept: one rewritten since its decoding is not replaced.
                            guard source?.isUnchanged() == true else { throw InputChanged() }
                            try journal?.recordFinished(record)
                        }
                    }
                    result.status = .written
                    result.bytesWritten = bytes.count
                    return FinishedImage(result: result, record: record, recorded: true, deliver: deliver)
                } else if case .unrecorded(let present, let otherOptions) = existing {
                    // No record says what made it: what this work makes decides, within what
                    // the backends may differ by (the output may have been made on the other one).
                    // A cache record that says other options made this very file leaves no room for
                    // that: only the same file (but its time stamp) is this work (--strip over an
                    // input without metadata makes it); anything else is the record's difference.
                    if codec.sameWork(present, memoryOutput.bytes, tolerance: otherOptions == nil ? Self.backendAgreement : 0) {
                        result.status = .skipped
                        // The record describes the file kept, not the bytes this run made and dropped
                        // (another tIME, other pixels): the next run finds it unchanged.
                        record = FinishedRecord(output: item.output, status: .skipped, size: present.count,
                                                crc32: CRC32.checksum(present), error: nil, made: made,
                                                input: inputFile?.description)
                    } else {
                        result.status = .conflict
                        result.error = otherOptions.map { "\(shown(item.output)) exists but \($0); kept — --overwrite replaces it" }
                            ?? "\(shown(item.output)) exists and differs from what this export makes "
                            + "(made by other options, or not by kiln); kept — --overwrite replaces it"
                        record = FinishedRecord(output: item.output, status: .conflict, size: 0, crc32: 0, error: result.error)
                    }
                } else if var written = staged, let file {
                    // Put in place and recorded by the commit (at once, or with its batch).
                    staged = nil
                    do {
                        try output.finishStaging(&written, flush: staging)
                    } catch {
                        output.discard(&written)
                        throw error
                    }
                    record = FinishedRecord(output: item.output, status: .written, size: file.size, crc32: file.crc32,
                                            error: nil, made: made, input: inputFile?.description)
                    result.status = .written
                    result.bytesWritten = file.size
                    return FinishedImage(result: result, record: record, staged: written, replace: replace,
                                         deliver: deliver)
                }
            } catch let stop as RenderStop {
                self.stop(because: stop.description)
                return nil
            } catch {
                // A full or read-only disk, or an output folder removed, stops the job: the image is left for resume, not failed. In place, an
                // output is written beside its input: a failure there is the input folder's file system's.
                let folder = (destination as NSString).deletingLastPathComponent
                let place = options.inPlace && error is OutputError ? (folder.isEmpty ? "." : folder) : nil
                if let stop = StoppingFailure.reason(error, in: output, place: place) {
                    self.stop(because: stop)
                    return nil
                }
                // A decoder's complaint about an input rewritten under it is the rewrite's doing: said so.
                result.error = source.map { $0.isUnchanged() } == false ? "\(InputChanged())" : "\(error)"
            }
        }
        // Skips, conflicts and failures are recorded too, so `kiln status` can count them;
        // resume redoes failures and conflicts (the input may have been fixed) but not skips.
        record.status = result.status
        record.error = result.error
        return FinishedImage(result: result, record: record, deliver: deliver)
    }

    /// The least stored size an image of `header` must keep when the plan starts
    /// with a resize (what the resize makes, turned back to how the rows are
    /// stored); nil when it does not start with one (``ExportPlan/shrinkOnLoadResize``).
    private func minimumSource(of header: ImageHeader, orientation: Int) -> (width: Int, height: Int)? {
        guard let resize = options.plan.shrinkOnLoadResize else { return nil }
        // Orientations 5-8 transpose the image: the box turns back with the rows.
        let transposed = orientation >= 5
        let upright = transposed ? (width: header.height, height: header.width) : (width: header.width, height: header.height)
        let made = resize.resampledSize(width: upright.width, height: upright.height)
        return transposed ? (made.height, made.width) : made
    }

    /// What the rows rendered from an image of `header` can hold (SPEC §4.1):
    /// alpha when the source has some (no operation makes an opaque image
    /// transparent); gray when the source is gray or the operations end gray
    /// (a grayscale with no watermark after it). A writer that streams chooses
    /// its header from this and refuses rows that break it.
    private func rowContent(of header: ImageHeader) -> RowContent {
        var gray = header.isGray
        for operation in options.plan.operations {
            switch operation {
            case .grayscale: gray = true
            case .watermark: gray = false
            default: break
            }
        }
        return RowContent(gray: gray, alpha: header.hasAlpha)
    }

    /// Makes the output's EXIF true of its pixels: its dimensions, and
    /// orientation 1 once the orientation was applied. An orientation found
    /// only after the pixels (an eXIf after IDAT) came too late to turn the
    /// image: the tag is kept, so viewers still show the image upright, and a
    /// warning says so. Under `--no-autorotate` the tag is kept as it is (where the
    /// EXIF is not kept, ``unturned(_:)`` says so).
    private func describeOrientation(of metadata: inout ImageMetadata, applied: Int, width: Int, height: Int) {
        let stated = metadata.orientation
        let late = options.plan.autorotate && stated != applied
        if late {
            metadata.warnings.append("EXIF orientation \(stated) comes after the image data, too late to be applied; "
                                     + "the tag is kept, so viewers that honour it show the image upright")
        }
        // A thumbnail shows the source: once the pixels are turned (the orientation then says 1) or operated
        // on, it showed the picture sideways, or uncropped.
        let quarterTurns = (Operation.upright(exifOrientation: applied) + options.plan.operations).count {
            if case .rotate(let rotate) = $0 { rotate.degrees % 180 != 0 } else { false }
        }
        metadata.describeOutput(width: width, height: height, upright: options.plan.autorotate && !late,
                                pictureChanged: applied != 1 || !options.plan.operations.isEmpty,
                                transposed: quarterTurns % 2 == 1)
    }

    /// Whether the output's samples keep the source's values (``Operation/onlyMovesSamples``, no colour conversion:
    /// `converted`), so that what the source says of them still holds.
    private func keepsSampleValues(converted: Bool) -> Bool {
        !converted && options.plan.operations.allSatisfy(\.onlyMovesSamples)
    }

    /// The codec `item`'s output is written with: the format `--format` names;
    /// under `same`, the one its output's name says (the collector named it after
    /// the input's name or content), or, in place, the input's own, `input`.
    private func outputCodec(for item: ExportItem, input: ImageFormat) -> any ImageCodec {
        // Every format named here has its codec.
        ImageCodecs.codec(for: outputFormat(for: item, input: input))!
    }

    /// The format `item`'s output is written in (see ``outputCodec(for:input:)``).
    private func outputFormat(for item: ExportItem, input: ImageFormat) -> ImageFormat {
        ImageCodecs.format(of: options.plan.output.format)
            ?? (options.inPlace ? input : ImageCodecs.format(byExtensionOf: item.output) ?? input)
    }

    /// Whether `file` is one of the job's inputs (their identities are read the first time it is asked).
    private func isInput(_ file: FileIdentity) -> Bool {
        inputIdentities.withLock { identities in
            // Each input's file, and the link it is named by where it is one: an output path holding a link is judged
            // as the link (``FileIdentity/init(entryAt:)``), and a link named as an input is an input.
            if identities == nil {
                identities = Set(items.flatMap { [FileIdentity(path: $0.input), FileIdentity(entryAt: $0.input)].compactMap { $0 } })
            }
            return identities!.contains(file)
        }
    }

    /// How far the CPU and Vulkan backends may differ, per 8-bit sample (docs/devices.md;
    /// checked by Tests/ComputeTests): an output in place that differs from this
    /// run's by no more, in pixels alone, is this same work made on the other backend.
    static let backendAgreement = 1

    /// What sits at an item's output path before the work, when `--overwrite` is not given.
    private enum Existing {
        /// Nothing: the output is written.
        case absent
        /// The journal recorded this output as made by this very work, and it is unchanged.
        case identical(FinishedRecord)
        /// It was made otherwise (or changed since); the reason, and the record of what made it where one says
        /// (kept as the conflict's record: a resume then finds it made otherwise again, where it compared the
        /// pixels alone and called an output of another --level "skipped").
        case conflict(String, madeBy: FinishedRecord? = nil)
        /// No journal record says what made it: its bytes, and how the user's cache record of this
        /// very file says it was made otherwise, if one does.
        case unrecorded([UInt8], otherOptions: String?)
    }

    /// What an image in flight holds beside its render and its writer's rows: its worker's stack, its
    /// codecs' states (zlib's window and tables), its input read whole. Counted in its admission: with
    /// `--jobs 64` on small images, 64 admitted at once under `--memory 110M` peaked at 166 MB (0.65 MB
    /// an image more than `--jobs 2` once the arenas were bounded, ``MemoryPolicy``).
    static let imageOverhead = 1 << 20

    /// In place, what an earlier run of this job (a stopped one, started again by the same command)
    /// recorded of the file: if the file is still what that run replaced it with, it is that run's
    /// output, not an input. Made by this same work it is skipped (before, the same command again
    /// blurred the finished images twice, exit 0); under other options the start is refused
    /// (``EarlierRunInPlace/forgotten``), and one replaced since is a conflict.
    /// Otherwise (no record, or the file changed since) it is an input like any other.
    private func replacedEarlier(_ item: ExportItem) -> Existing {
        guard let (earlier, plan) = EarlierRunInPlace.replacedRecord(of: item, in: earlierRecords, output: output) else { return .absent }
        guard isThisWork(plan, for: item) else {
            return .conflict("\(item.input) was replaced by an earlier run of this job with other options; kept")
        }
        return .identical(earlier)
    }

    /// Whether every path of `paths` names a file (links followed) that one of `among` names too.
    public static func sameFiles(_ paths: [String], among: [String]) -> Bool {
        let files = Set(among.compactMap { FileIdentity(path: $0) })
        return paths.allSatisfy { FileIdentity(path: $0).map(files.contains) == true }
    }

    /// The output `relative` as reports name it: in place, the input's own path, as given; else under the
    /// output folder as the user named it (a resume's `file` events named it from the root, an in-place
    /// resume's `/tmp/x/./in/a.png`, where its export said `out/a.png` and `in/a.png`).
    private func shown(_ relative: String) -> String {
        guard !options.inPlace, !relative.hasPrefix("/") else { return relative }
        // `-o exported/` named its outputs `exported//a.png`.
        var directory = shownOutputDirectory ?? output.path
        while directory.count > 1, directory.hasSuffix("/") { directory.removeLast() }
        return directory + "/" + relative
    }

    /// The digest of this work as it bears on `item`'s output (by the format it is written in, where `--format` or
    /// its name says it, as ``outputFormat(for:input:)`` decides; the whole plan's otherwise: in place, where the
    /// input's content decides, and a name can say another format than the bytes hold).
    private func digest(for item: ExportItem) -> String {
        guard !options.inPlace else { return planDigest }
        let format = ImageCodecs.format(of: options.plan.output.format) ?? ImageCodecs.format(byExtensionOf: item.output)
        return format.flatMap { formatDigests[$0] } ?? planDigest
    }

    /// Whether an output recorded as made under the plan digest `plan` is `item`'s by this work: under the digest of
    /// the work as it bears on its format, or of the whole plan (as kiln recorded it before).
    private func isThisWork(_ plan: String, for item: ExportItem) -> Bool {
        plan == digest(for: item) || plan == planDigest
    }

    /// Whether `before` (a record's) is the provenance `now` of `item`: the same input version, made by this work.
    private func isThisWork(_ before: Provenance, _ now: Provenance, for item: ExportItem) -> Bool {
        before.inputSize == now.inputSize && before.inputModified == now.inputModified && isThisWork(before.plan, for: item)
    }

    /// Why an output made as `made` is not the work `wanted` describes, in a few words.
    private func difference(_ made: Provenance, _ wanted: Provenance) -> String {
        // An earlier kiln's record of this very work names the whole plan: only its input can differ then.
        var made = made
        if made.plan == planDigest { made.plan = wanted.plan }
        guard made.plan != wanted.plan, made.plan == unfingerprintedDigest else { return made.difference(to: wanted) }
        return "it was made by an earlier kiln, which kept no record of the watermark or profile file's bytes"
    }

    /// The folder's other journals' records of `output`.
    private func otherJournalsRecords(of output: String) -> [FinishedRecord] {
        guard let otherJournals else { return [] }
        return otherJournalsRead.withLock { read in
            if read == nil { read = otherJournals() }
            return read?[output] ?? []
        }
    }

    /// What occupies the output path (the caller found it occupied).
    private func existingOutput(_ item: ExportItem, made: Provenance?, inputFile: FileVersion?) -> Existing {
        let path = shown(item.output)
        guard let present = output.regularFileContents(item.output) else {
            // A folder stays whatever the flags: no rename replaces it (before, this said --overwrite did).
            let type = output.fileType(item.output)
            return .conflict(type == S_IFDIR ? "\(path) is a folder; kept (--overwrite replaces files and links, never a folder)"
                                 : type == S_IFREG ? "\(path) exists but cannot be read; kept — --overwrite replaces it"
                                 : "\(path) is \(type.flatMap(SpecialFile.kind) ?? "not a regular file"); kept — --overwrite replaces it")
        }
        guard let earlier = earlierRecords[item.output], earlier.size > 0, let madeBefore = earlier.made else {
            // A hint stands for the very input file that made the output, not any of its name, size
            // and time: another set of inputs by the same names, copied with their times, is made
            // again and compared (before, its outputs were kept as the first set's).
            // The cache's record first; then, read once, when needed, the folder's other journals' (each shard's,
            // the whole job's: ``ShardLayout/otherJournalsRecords(in:besides:)``), whichever is of this very file.
            var crc: UInt32?
            let matches = { (hint: FinishedRecord) -> Bool in
                guard let inputFile, hint.input == inputFile.description, present.count == hint.size else { return false }
                if crc == nil { crc = CRC32.checksum(present) }
                return crc == hint.crc32
            }
            // Of the records of this very file, one of this work where there is one (two journals may record the same
            // bytes made by other options: `--strip` of an input with nothing to strip).
            let cached = madeHints[item.output].flatMap { matches($0) ? $0 : nil }
            let ofThisFile = cached.map { [$0] } ?? otherJournalsRecords(of: item.output).filter(matches)
            let hint = ofThisFile.first { hint in
                guard let made, let before = hint.made else { return false }
                return isThisWork(before, made, for: item)
            } ?? ofThisFile.first
            if let hint, let made, let madeBefore = hint.made {
                // The user's own record of this very file from this very input: it says what made it, also
                // what a comparison cannot tell (another --level over the same pixels, found 2026-11-27).
                guard isThisWork(madeBefore, made, for: item) else {
                    return .unrecorded(present, otherOptions: difference(madeBefore, made))
                }
                return .identical(hint)
            }
            return .unrecorded(present, otherOptions: nil)
        }
        guard present.count == earlier.size, CRC32.checksum(present) == earlier.crc32 else {
            return .conflict("\(path) was changed after kiln wrote it; kept — --overwrite replaces it")
        }
        guard let made, isThisWork(madeBefore, made, for: item) else {
            // A conflict at once, unread: a folder re-exported with other options under its journal is
            // not decoded image by image (the cache's records, above, are compared: they are rarer).
            let why = made.map { difference(madeBefore, $0) } ?? "its input cannot be read"
            return .conflict("\(path) exists but \(why); kept — --overwrite replaces it", madeBy: earlier)
        }
        return .identical(earlier)
    }
}
