/// What the PNG specification (third edition, §5.6 "Chunk ordering") says
/// about the ancillary chunks allowed once: the latest place each may stand.
/// An output holds at most one of each, where the table allows it, whatever
/// its input held.
enum PNGChunkRules {
    /// The chunks allowed once per image, and the latest place each may stand.
    /// The colour chunks come before PLTE; bKGD, hIST and tRNS after PLTE
    /// (outputs have none, so before the image data); tIME anywhere.
    static let singletons: [String: PNGChunk.Placement] = [
        "cHRM": .beforePalette, "gAMA": .beforePalette, "iCCP": .beforePalette, "sBIT": .beforePalette,
        "sRGB": .beforePalette, "cICP": .beforePalette, "mDCv": .beforePalette, "cLLi": .beforePalette,
        "bKGD": .beforeImageData, "hIST": .beforeImageData, "tRNS": .beforeImageData,
        "pHYs": .beforeImageData, "eXIf": .beforeImageData,
        "tIME": .afterImageData,
    ]

    /// `chunks` with only the first of each singleton type (libpng's rule: a
    /// later one is a benign error it ignores), each moved no later than its
    /// allowed place; and the types that had more than one, in stream order.
    static func firstOfEachSingleton(_ chunks: [PNGChunk]) -> (chunks: [PNGChunk], duplicated: [String]) {
        var seen: Set<String> = []
        var duplicated: [String] = []
        var kept: [PNGChunk] = []
        for var chunk in chunks {
            guard let latest = singletons[chunk.type] else {
                kept.append(chunk)
                continue
            }
            guard seen.insert(chunk.type).inserted else {
                if !duplicated.contains(chunk.type) { duplicated.append(chunk.type) }
                continue
            }
            if chunk.placement.rawValue > latest.rawValue { chunk.placement = latest }
            kept.append(chunk)
        }
        return (kept, duplicated)
    }
}

extension PNGMetadata {
    /// Keeps the first chunk of each type allowed once, naming every type that
    /// had more in `warnings` ("gAMA: more than one gAMA chunk; …").
    mutating func keepFirstOfEachSingleton() {
        let (kept, duplicated) = PNGChunkRules.firstOfEachSingleton(chunks)
        chunks = kept
        warnings += duplicated.map {
            "\($0): more than one \($0) chunk, which the PNG specification allows once; the first is kept, the others left out"
        }
    }
}
