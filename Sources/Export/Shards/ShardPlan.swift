/// Which shard exports which item: consistent (rendezvous) hashing with
/// bounded loads (Mirrokni, Thorup, Zadimoghaddam, "Consistent Hashing with
/// Bounded Loads", 2018), weighted by each image's pixels.
///
/// - **Deterministic everywhere**: an item's ranking of the shards depends only
///   on its output path (relative to the output directory, so the same on every
///   machine whatever the mount point) and the shard index, through FNV-1a and
///   a SplitMix64 finalizer — never Swift's `Hasher`, which is seeded per process.
/// - **Exactly once**: every shard computes the whole assignment from the same
///   plan and keeps its part, so each item belongs to exactly one shard.
/// - **Balanced by pixels**: items are placed heaviest first; each goes to the
///   first shard in its ranking whose load stays within `(1 + slack)` times the
///   mean (or, when none has room, the least loaded), so no shard carries much
///   more than its share even with a few huge images.
/// - **Stable when inputs are added**: an item stays with its favourite shard
///   unless that one is full, so adding inputs moves few earlier items (plain
///   largest-first packing would reshuffle most of them); existing outputs of a
///   moved item are recognized and skipped anyway.
public struct ShardPlan: Sendable, Equatable {
    /// How far above the mean load (in pixels) a shard may go before items spill to their next choice.
    public static let slack = 0.05

    /// The shard of each item, in the order given.
    public let assignment: [Int]
    /// Pixels per shard.
    public let pixels: [Int64]
    /// Items per shard.
    public let items: [Int]

    /// Splits items, identified by `keys` (their output paths) and weighted by `weights` (pixels), into `count` shards.
    public init(keys: [String], weights: [Int64], count: Int) {
        precondition(keys.count == weights.count && count >= 1)
        let total = weights.reduce(0, +)
        let capacity = Double(total) / Double(count) * (1 + Self.slack)
        // Heaviest first (then by key, so ties order the same everywhere): large items find room before small ones fill it.
        let order = keys.indices.sorted { weights[$0] != weights[$1] ? weights[$0] > weights[$1] : Array(keys[$0].utf8).lexicographicallyPrecedes(Array(keys[$1].utf8)) }
        var load = [Int64](repeating: 0, count: count)
        var items = [Int](repeating: 0, count: count)
        var assignment = [Int](repeating: 0, count: keys.count)
        for index in order {
            let ranking = Self.ranking(of: keys[index], count: count)
            let weight = weights[index]
            let shard = ranking.first { Double(load[$0] + weight) <= capacity }
                ?? ranking.min { load[$0] < load[$1] }!  // min keeps the first of equals: the better ranked
            assignment[index] = shard
            load[shard] += weight
            items[shard] += 1
        }
        self.assignment = assignment
        self.pixels = load
        self.items = items
    }

    /// The shards in `key`'s order of preference (highest rendezvous score first).
    static func ranking(of key: String, count: Int) -> [Int] {
        let base = fnv1a(key)
        let scores = (0..<count).map { mix(base ^ mix(UInt64($0) &+ 0x9E37_79B9_7F4A_7C15)) }
        return (0..<count).sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }
    }

    private static func fnv1a(_ key: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// The SplitMix64 finalizer: spreads every input bit over the whole word.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
