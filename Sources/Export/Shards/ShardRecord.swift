import Foundation

/// What a shard's `job.json` says about the sharded job it belongs to: which
/// shard it is, a digest of the whole plan (shards that planned from different
/// inputs disagree on it), and the size of every shard, so `kiln status` knows
/// the totals before all shards have started.
public struct ShardRecord: Codable, Sendable, Equatable {
    /// The size of one shard's share.
    public struct Share: Codable, Sendable, Equatable {
        /// Items in the share.
        public var items: Int
        /// Their pixels, from the PNG headers.
        public var pixels: Int64
    }

    /// This shard.
    public var spec: ShardSpec
    /// A digest of the whole plan (every output and its weight) and the shard count.
    public var planDigest: String
    /// Every shard's share, by index.
    public var shares: [Share]

    /// The record of shard `spec` of the plan `keys` (output paths) weighted by `weights`, split as `plan`.
    public init(spec: ShardSpec, keys: [String], weights: [Int64], plan: ShardPlan) {
        self.spec = spec
        // In the outputs' order, not the inputs': the same files listed in another order (`find` gives them in the
        // directory's order, which differs between hosts) are the same plan (before, `kiln status` warned that the
        // shards planned different inputs, and a retry fed the list in another order started afresh).
        var text = "\(spec.count)\n"
        for (key, weight) in zip(keys, weights).sorted(by: { $0.0 < $1.0 }) { text += "\(key)\t\(weight)\n" }
        planDigest = String(CRC32.checksum(Array(text.utf8)), radix: 16)
        shares = zip(plan.items, plan.pixels).map { Share(items: $0, pixels: $1) }
    }

    /// This shard's share.
    public var share: Share { shares[spec.index] }
}

extension JobRecord {
    /// Whether `earlier` (a shard's recorded job) is this very job, so running the same
    /// `export --shard` command again continues it as `kiln resume` would. The start
    /// time (the tIME an output states) and `--jobs` may differ: the former is taken
    /// from the record, so redone items come out byte-identical.
    public func continues(_ earlier: JobRecord) -> Bool {
        var mine = options, theirs = earlier.options
        mine.started = 0
        theirs.started = 0
        mine.jobs = 0
        theirs.jobs = 0
        // The files the plan names are checked once it continues (``FileFingerprint``): a changed one refuses the
        // retry, exit 64, rather than start the shard afresh over outputs made with the file as it was.
        mine.plan.files = []
        theirs.plan.files = []
        // Where the shared folder is mounted may differ between the hosts that run a shard.
        theirs.outputDirectory = mine.outputDirectory
        // The inputs named in another order (a shell's glob or `find` on another host): the same plan.
        if mine.inputs.sorted() == theirs.inputs.sorted() { theirs.inputs = mine.inputs }
        // The same items in any order: the inputs as listed (see ``ShardRecord/init(spec:keys:weights:plan:)``).
        let order = { (a: ExportItem, b: ExportItem) in (a.output, a.input) < (b.output, b.input) }
        return shard != nil && shard == earlier.shard && mine == theirs && device == earlier.device
            && items.sorted(by: order) == earlier.items.sorted(by: order)
    }
}
