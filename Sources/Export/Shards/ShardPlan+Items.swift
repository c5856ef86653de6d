import ImageCore


extension ShardPlan {
    /// An item's weight: its pixels, from the image's header (a few bytes read). An item that
    /// cannot be read (it will fail anyway) or has a known problem weighs one pixel; one larger than
    /// any job reads (`--max-pixels` goes up to 2^31 - 1) fails at its header, and weighs that bound,
    /// so that the sums of a plan never overflow (a PNG may declare 2^31 - 1 pixels each way).
    public static func pixels(of item: ExportItem) -> Int64 {
        guard item.problem == nil, let header = try? ImageCodecs.header(contentsOf: item.input) else { return 1 }
        return min(Int64(header.width) * Int64(header.height), Int64(Int32.max))
    }

    /// Shard `spec`'s share of the planned `items` (in plan order) and the record its journal keeps.
    /// `weights` defaults to each item's pixels.
    public static func share(of items: [ExportItem], for spec: ShardSpec,
                             weights: [Int64]? = nil) -> (items: [ExportItem], record: ShardRecord) {
        let weights = weights ?? items.map(pixels)
        let keys = items.map(\.output)
        let plan = ShardPlan(keys: keys, weights: weights, count: spec.count)
        let mine = items.indices.filter { plan.assignment[$0] == spec.index }.map { items[$0] }
        return (mine, ShardRecord(spec: spec, keys: keys, weights: weights, plan: plan))
    }
}
