import Foundation

/// The state of a sharded job as a whole, read from every shard's journal in a
/// shared output directory (what `kiln status OUTPUT` shows). Reading never
/// writes, and works from any host that mounts the directory.
public struct ShardedStatus: Codable, Sendable {
    /// Where one shard is.
    public enum State: String, Codable, Sendable {
        /// No process has started this shard yet (no journal).
        case notStarted
        /// Waiting for a machine slot.
        case queued
        /// Exporting (a live process holds the shard's lock).
        case running
        /// Asked to stop; finishing the images in flight.
        case stopping
        /// Stopped by job control (Ctrl-Z).
        case suspended
        /// Not running and not finished: killed, preempted or cancelled; the same command continues it.
        case stopped
        /// Every item of the shard finished.
        case finished
    }

    /// One shard's line.
    public struct Shard: Codable, Sendable {
        /// `K/N`.
        public var shard: String
        /// Where it is.
        public var state: State
        /// The host running it (for a live shard; the last one otherwise).
        public var host: String?
        /// The pid of the process running it, while it runs.
        public var pid: Int32?
        /// Items in the shard.
        public var total: Int
        /// Items finished (written, skipped or failed).
        public var completed: Int
        /// Outputs written.
        public var written: Int
        /// Outputs skipped (already there, made by this work).
        public var skipped: Int
        /// Items failed or kept as conflicts.
        public var failed: Int
        /// Fraction done, weighted by pixels.
        public var fraction: Double
        /// The shard's pixels (its weight in the whole).
        public var pixels: Int64
        /// Images per second of its current (or last) run.
        public var imagesPerSecond: Double?
        /// Pixels per second of its current (or last) run.
        public var pixelsPerSecond: Double?
        /// When its current (or last) run started, and when its status was last written (seconds since 1970).
        public var started: Double?
        public var updated: Double?
        /// How its last run ended (its `end` event's code), once it has.
        public var exitCode: Int32?
        /// While it is queued: its place in the machine's queue, and the jobs holding the slots it waits for.
        public var queuePosition: Int?
        public var waitingFor: [MachineSlots.Holder]?
    }

    /// Always `status`, as the whole-job status line.
    public var event = "status"
    /// How many shards the job has.
    public var shardCount: Int
    /// The job as a whole: `running` while any shard runs, else `queued` while one waits for the machine's slots,
    /// `finished` when all are, `notStarted` before any started, else `incomplete` (some shards stopped or not yet
    /// started).
    public var state: String
    /// Items in the whole plan.
    public var total: Int
    /// Items finished, all shards together.
    public var completed: Int
    /// Outputs written.
    public var written: Int
    /// Outputs skipped.
    public var skipped: Int
    /// Items failed or in conflict.
    public var failed: Int
    /// Fraction of the whole done, weighted by pixels.
    public var fraction: Double
    /// Images per second: the sum over running shards, or, when none runs, finished images over the span of the runs.
    public var imagesPerSecond: Double?
    /// Pixels per second, the same way.
    public var pixelsPerSecond: Double?
    /// The cancel mark's note, when `kiln cancel` cancelled the job.
    public var cancelled: String?
    /// What looks wrong (shards that planned different inputs, shards of another split).
    public var warnings: [String]
    /// Every shard, by index.
    public var shards: [Shard]
    /// The job's title and subtitle (its operations, format and device, or `--title`, `--subtitle`), as a shard's run said them.
    public var title: String?
    public var subtitle: String?
    /// When the first shard's run started and when a shard's status was last written (seconds since 1970).
    public var started: Double?
    public var updated: Double?

    /// The status of the sharded job in `outputDirectory`, or nil when it holds none.
    /// Several splits (e.g. 4 then 8 shards) are told apart by N: the one started last is shown.
    public static func read(_ outputDirectory: String) -> ShardedStatus? {
        let found = ShardLayout.shards(in: outputDirectory)
        guard !found.isEmpty else { return nil }
        let counts = Set(found.map(\.count))
        func started(_ count: Int) -> Date {
            found.filter { $0.count == count }.compactMap { spec -> Date? in
                let path = ShardLayout.directory(of: spec, in: outputDirectory) + "/job.json"
                return (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            }.max() ?? .distantPast
        }
        let count = counts.max { started($0) < started($1) }!
        var warnings = counts.subtracting([count]).sorted().map {
            "\(outputDirectory) also holds shards of a split into \($0) (left out here)"
        }
        let journals = (0..<count).map { Journal(outputDirectory: outputDirectory, shard: ShardSpec(index: $0, count: count)) }
        let records = journals.map { try? $0.job() }
        let shares = records.lazy.compactMap { $0?.shard?.shares }.first ?? []
        let digests = Set(records.compactMap { $0?.shard?.planDigest })
        if digests.count > 1 {
            warnings.append("shards planned different inputs (the inputs changed between their starts): "
                            + "some inputs may be exported twice or not at all")
        }
        // The split's digest covers the inputs only: shards started with other options (an array member's mistake)
        // were summed as one finished job, their outputs made two ways, without a word.
        if Set(records.compactMap { $0.map { Provenance.digest(of: $0.options.plan) } }).count > 1 {
            warnings.append("shards were started with other options (operations, format and its settings, level, "
                            + "metadata, colour, autorotation, or the files they name): their outputs were made differently")
        }
        var shards: [Shard] = []
        for index in 0..<count {
            let share = index < shares.count ? shares[index] : ShardRecord.Share(items: records[index]?.items.count ?? 0, pixels: 0)
            shards.append(shard(ShardSpec(index: index, count: count), journal: journals[index], record: records[index],
                                share: share))
        }
        return aggregate(shards, count: count, warnings: warnings, cancelled: ShardLayout.cancelMark(outputDirectory),
                         journals: journals)
    }

    private static func shard(_ spec: ShardSpec, journal: Journal, record: JobRecord?, share: ShardRecord.Share) -> Shard {
        var line = Shard(shard: spec.description, state: .notStarted, host: nil, pid: nil, total: record?.items.count ?? share.items,
                         completed: 0, written: 0, skipped: 0, failed: 0, fraction: 0, pixels: share.pixels)
        guard record != nil else { return line }
        let live = journal.status()
        line.host = live?.host
        if JobLock.isHeld(journal) {
            // Counts and fraction of one publication: they agree with each other. A status that says the
            // run ended is either its last words before exiting (its pid still lives here: stopping) or a
            // predecessor's, read before the new holder published (running, no counts yet).
            let ending = live.map { $0.state == .finished || $0.state == .stopped } ?? false
            let stillHere = live.map { $0.host == Host.name && kill($0.pid, 0) == 0 } ?? false
            let current = ending && !stillHere ? nil : live
            line.state = ending ? (stillHere ? .stopping : .running)
                : current.flatMap { State(rawValue: $0.state.rawValue) } ?? .running
            line.pid = current?.pid
            if let current {
                (line.completed, line.written, line.skipped, line.failed) = (current.completed, current.written,
                                                                             current.skipped, current.failed)
                line.fraction = current.fraction
                if line.state == .queued { (line.queuePosition, line.waitingFor) = (current.queuePosition, current.waitingFor) }
            }
        } else {
            // A process that died (even by kill -9) no longer holds the lock: the journal says what is done.
            let finished = journal.finished()
            let count = { (status: FileResult.Status) in finished.values.filter { $0.status == status }.count }
            (line.written, line.skipped) = (count(.written), count(.skipped))
            line.failed = count(.failed) + count(.conflict)
            line.completed = finished.count
            line.state = live?.state == .finished && line.completed >= line.total ? .finished : .stopped
            // The part of the work in images finished, where `kiln resume --shard` continues from.
            line.fraction = line.state == .finished ? 1
                : live?.finishedFraction(recorded: line.completed) ?? Double(line.completed) / Double(max(1, line.total))
        }
        line.imagesPerSecond = live?.imagesPerSecond
        line.pixelsPerSecond = live?.pixelsPerSecond
        line.started = live?.started
        line.updated = live?.updated
        // Only once the run ended: a running one's status says none.
        line.exitCode = line.state == .finished || line.state == .stopped ? live?.exitCode : nil
        return line
    }

    private static func aggregate(_ shards: [Shard], count: Int, warnings: [String], cancelled: String?,
                                  journals: [Journal]) -> ShardedStatus {
        let live: Set<State> = [.queued, .running, .stopping, .suspended]
        // Shards that all wait for a slot are not running (it said so of shards queued behind another job).
        let state = shards.contains { live.contains($0.state) && $0.state != .queued } ? "running"
            : shards.contains { $0.state == .queued } ? "queued"
            : shards.allSatisfy { $0.state == .finished } ? "finished"
            : shards.allSatisfy { $0.state == .notStarted } ? "notStarted" : "incomplete"
        let pixels = shards.map(\.pixels).reduce(0, +)
        // Pixel-weighted; a journal without weights (pixels 0 everywhere) falls back to items.
        let fraction = pixels > 0
            ? shards.map { $0.fraction * Double($0.pixels) }.reduce(0, +) / Double(pixels)
            : Double(shards.map(\.completed).reduce(0, +)) / Double(max(1, shards.map(\.total).reduce(0, +)))
        var status = ShardedStatus(shardCount: count, state: state, total: shards.map(\.total).reduce(0, +),
                                   completed: shards.map(\.completed).reduce(0, +), written: shards.map(\.written).reduce(0, +),
                                   skipped: shards.map(\.skipped).reduce(0, +), failed: shards.map(\.failed).reduce(0, +),
                                   fraction: min(1, fraction), cancelled: cancelled, warnings: warnings, shards: shards)
        // Before, only a whole job's status said these: scripts watching a sharded job had no start or last word.
        // A shard's own title, unless `--title` gave one, says its share: the job's says the whole ("Exporting
        // 50 images (shard 0/4)" stood beside a total of 200).
        if let (index, said) = journals.enumerated().lazy.compactMap({ index, journal in journal.status().map { (index, $0) } })
            .first {
            let own = ShardSpec(index: index, count: count).title(images: shards[index].total)
            status.title = said.title != own ? said.title
                : JobRecord.defaultTitle(images: status.total) + " in \(count) shard\(count == 1 ? "" : "s")"
            status.subtitle = said.subtitle
        }
        status.started = shards.compactMap(\.started).min()
        status.updated = shards.compactMap(\.updated).max()
        let running = shards.filter { live.contains($0.state) }
        if !running.isEmpty {
            status.imagesPerSecond = running.compactMap(\.imagesPerSecond).reduce(0, +)
            status.pixelsPerSecond = running.compactMap(\.pixelsPerSecond).reduce(0, +)
        } else {
            // Finished work over the span from the first start to the last update, across hosts.
            let lives = journals.compactMap { $0.status() }
            if let first = lives.compactMap(\.started).min(), let last = lives.map(\.updated).max(), last > first {
                let span = last - first
                status.imagesPerSecond = Double(lives.map { $0.completed }.reduce(0, +)) / span
                let done = zip(shards, journals).filter { $0.1.status() != nil }.map { Double($0.0.pixels) * $0.0.fraction }
                status.pixelsPerSecond = done.reduce(0, +) / span
            }
        }
        return status
    }
}
