/// What the PNG specification (third edition, §5.6 "Chunk ordering") says
/// about the ancillary chunks allowed once: the latest place each may stand.
/// An output holds at most one of each, in its place, whatever its input held.
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

    /// Singletons that a reader honours wherever they stand, so a late one is
    /// moved up rather than left out: libpng 1.6 reads eXIf anywhere, but
    /// ignores every other chunk above that stands too late ("out of place"),
    /// and so does every viewer built on it: keeping those would change how
    /// the output looks from how the input looked.
    static let movable: Set<String> = ["eXIf"]

    /// `chunks` with only the first of each singleton type (libpng's rule: a
    /// later one is a benign error it ignores), a late one moved to its place
    /// (``movable``) or left out; the types repeated and those left out for
    /// their place, each once, in stream order.
    static func firstOfEachSingleton(_ chunks: [PNGChunk]) -> (chunks: [PNGChunk], duplicated: [String], misplaced: [String]) {
        var seen: Set<String> = []
        var duplicated: [String] = []
        var misplaced: [String] = []
        var kept: [PNGChunk] = []
        for var chunk in chunks {
            guard let latest = singletons[chunk.type] else {
                kept.append(chunk)
                continue
            }
            if chunk.placement.rawValue > latest.rawValue {
                guard movable.contains(chunk.type) else {
                    if !misplaced.contains(chunk.type) { misplaced.append(chunk.type) }
                    continue
                }
                chunk.placement = latest
            }
            guard seen.insert(chunk.type).inserted else {
                if !duplicated.contains(chunk.type) { duplicated.append(chunk.type) }
                continue
            }
            kept.append(chunk)
        }
        return (kept, duplicated, misplaced)
    }
}

extension PNGMetadata {
    /// Keeps the first chunk of each type allowed once, naming every type that
    /// had more, or stood where readers ignore it, in `warnings`.
    mutating func keepFirstOfEachSingleton() {
        let (kept, duplicated, misplaced) = PNGChunkRules.firstOfEachSingleton(chunks)
        chunks = kept
        warnings += misplaced.map {
            "\($0): out of place (the PNG specification puts it before \(PNGChunkRules.singletons[$0] == .beforePalette ? "PLTE and " : "")the image data, and readers ignore it elsewhere); left out"
        }
        warnings += duplicated.map {
            "\($0): more than one \($0) chunk, which the PNG specification allows once; the first is read, the others left out"
        }
        // One of iCCP and sRGB (PNG specification §11.3.3.4): kiln reads the colours from the profile, which comes
        // first, so the sRGB chunk goes. Before, both were copied, and the output was invalid (pngcheck: "iCCP not
        // allowed with sRGB"); libpng's readers (vips) took the sRGB chunk and showed other colours than kiln.
        if chunks.contains(where: { $0.type == "iCCP" }), chunks.contains(where: { $0.type == "sRGB" }) {
            chunks.removeAll { $0.type == "sRGB" }
            warnings.append("sRGB: an iCCP beside it says the colours, and the PNG specification allows one of the two; "
                            + "the profile is read and kept, the sRGB chunk left out")
        }
    }
}
