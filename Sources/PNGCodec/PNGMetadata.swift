import CPNG
public import ImageCore

/// The ancillary information of a PNG (colour, text, EXIF, resolution, …),
/// carried raw from a decoded file to the encoded output.
///
/// Reading keeps every ancillary chunk but tRNS (the pixels carry it) and
/// checks the compressed ones (iCCP, zTXt, compressed iTXt): a damaged chunk
/// costs that chunk, never the image, and is named in ``warnings``. Of a chunk
/// the PNG specification allows once (gAMA, eXIf, …; ``PNGChunkRules``) only
/// the first is kept, a repeat (or one placed where readers ignore it) named
/// in ``warnings``: the model never holds two, whichever decoder read the file.
/// An APNG's animation is dropped with a warning (the default image stays). Writing
/// (``PNGEncoder/encode(_:options:metadata:keep:time:)``) keeps what is still
/// true of the output and says what it left out and why.
public struct PNGMetadata: Sendable, Equatable {
    /// The chunks, in stream order.
    public var chunks: [PNGChunk]
    /// The source's colour type, to tell which format-bound chunks still hold.
    public var sourceColorType: PNGColorType
    /// The source's bit depth.
    public var sourceBitDepth: Int
    /// Ancillary chunks that were left out while reading, one sentence each
    /// ("iCCP: the compressed profile is damaged").
    public var warnings: [String]
    /// Whether an APNG's animation was left out (``dropAnimation()``).
    public var dropsAnimation = false

    /// Metadata.
    public init(chunks: [PNGChunk], sourceColorType: PNGColorType, sourceBitDepth: Int, warnings: [String] = []) {
        self.chunks = chunks
        self.sourceColorType = sourceColorType
        self.sourceBitDepth = sourceBitDepth
        self.warnings = warnings
    }

    /// The colour space of the ICC profile in iCCP ("RGB ", "GRAY", …), if there is one.
    public var profileColorSpace: String? {
        guard let chunk = chunks.first(where: { $0.type == "iCCP" }) else { return nil }
        return Self.inspectProfile(chunk.data).colorSpace
    }

    /// The ICC profile of iCCP, inflated, if there is a sound one.
    public var profileBytes: [UInt8]? {
        guard let data = chunks.first(where: { $0.type == "iCCP" })?.data,
              let nul = data.firstIndex(of: 0), nul + 2 <= data.count else { return nil }
        return Self.inflate(data[(nul + 2)...])
    }

    /// A zlib stream inflated, or nil when it is damaged or inflates to more than ``maxInflatedBytes``.
    static func inflate(_ compressed: ArraySlice<UInt8>) -> [UInt8]? {
        var total = 0
        // Once for the size, once into a buffer of that size (the head is the whole output).
        let sized = compressed.withUnsafeBufferPointer {
            cpng_inflate_check($0.baseAddress, $0.count, maxInflatedBytes, nil, 0, &total)
        }
        guard sized == 0 else { return nil }
        var output = [UInt8](repeating: 0, count: total)
        let filled = compressed.withUnsafeBufferPointer {
            cpng_inflate_check($0.baseAddress, $0.count, maxInflatedBytes, &output, total, nil)
        }
        return filled == 0 ? output : nil
    }

    /// Largest inflated size accepted for a compressed chunk (a profile or a text).
    static let maxInflatedBytes = 64 << 20

    /// Drops damaged chunks (compressed ones that do not inflate, colour chunks out of their range, chunks of the
    /// wrong length for the source's colour type), naming each in `warnings`: copied as they are, they would make
    /// an invalid output (pngcheck: "invalid pHYs length"; libpng drops each with a warning).
    mutating func dropDamagedChunks() {
        let (colorType, bitDepth) = (sourceColorType, sourceBitDepth)
        chunks.removeAll { chunk in
            guard let problem = Self.problem(with: chunk, colorType: colorType, bitDepth: bitDepth) else { return false }
            warnings.append("\(chunk.type): \(problem); the chunk is left out")
            return true
        }
    }

    /// Why a chunk cannot be kept, or nil when it is sound: the checks of libpng and pngcheck, for every chunk
    /// kiln copies (a chunk it writes anew, tIME or tRNS, or never copies, hIST, is not looked at).
    /// `colorType`, `bitDepth`: the image's, which bKGD and sBIT are in.
    static func problem(with chunk: PNGChunk, colorType: PNGColorType, bitDepth: Int) -> String? {
        let data = chunk.data
        func bytes(_ count: Int) -> String { count == 1 ? "1 byte" : "\(count) bytes" }
        let channels = [PNGColorType.gray: 1, .rgb: 3, .palette: 3, .grayAlpha: 2, .rgba: 4][colorType]!
        switch chunk.type {
        case "iCCP":
            let (space, problem) = inspectProfile(data)
            // libpng: "RGB color space not permitted on grayscale PNG". Kept, it made a gray image's output RGB and
            // tagged with it, and a conversion read the grays through it (64 became 137 where vips keeps 64).
            if problem == nil, space == "RGB ", colorType == .gray || colorType == .grayAlpha {
                return "an RGB profile on a gray image, which the PNG specification does not allow (libpng and libvips "
                    + "drop it too)"
            }
            return problem
        case "gAMA":
            // 0 (pngcheck: "invalid gAMA value") would say every sample is black or white.
            return data.count == 4 && bigEndian(data[...]) > 0 ? nil : "the gamma is not a positive number"
        case "cHRM":
            guard data.count == 32 else { return "\(bytes(data.count)) where its eight chromaticities take 32" }
            // White point and primaries, x and y each: a y of 0 puts the colour at infinity (lcms2 still builds a
            // profile of it, its matrix -32768 throughout), as does any x + y past 1 (vips: "invalid chromaticities").
            let values = (0..<4).map { pair in
                (x: bigEndian(data[(8 * pair)..<(8 * pair + 4)]), y: bigEndian(data[(8 * pair + 4)..<(8 * pair + 8)]))
            }
            return values.allSatisfy { $0.x > 0 && $0.y > 0 && $0.x + $0.y <= 100_000 } ? nil : "chromaticities no colour has"
        case "sRGB":
            return data.count == 1 && data[0] <= 3 ? nil : "no rendering intent (0-3)"
        case "cICP":
            return data.count == 4 && data[3] <= 1 ? nil : "not four bytes with a range flag of 0 or 1"
        case "cLLi":
            return data.count == 8 ? nil : "\(bytes(data.count)) where its two light levels take 8"
        case "mDCv":
            return data.count == 24 ? nil : "\(bytes(data.count)) where its chromaticities and luminances take 24"
        case "pHYs", "oFFs":
            // Two 4-byte numbers (oFFs: signed) and a unit: 0 or 1.
            guard data.count == 9 else { return "\(bytes(data.count)) where its two numbers and unit take 9" }
            return data[8] <= 1 ? nil : "unknown unit \(data[8])"
        case "sTER":
            return data.count == 1 && data[0] <= 1 ? nil : "no layout (0 or 1)"
        case "bKGD":
            // A palette index, a gray level or three samples, each within the image's bit depth.
            let size = colorType == .palette ? 1 : [PNGColorType.gray: 2, .grayAlpha: 2][colorType] ?? 6
            guard data.count == size else { return "\(bytes(data.count)) where a background of this colour type takes \(size)" }
            guard colorType != .palette else { return nil }
            let samples = stride(from: 0, to: size, by: 2).map { Int(data[$0]) << 8 | Int(data[$0 + 1]) }
            return samples.allSatisfy { $0 < 1 << bitDepth } ? nil : "a colour past the image's \(bitDepth)-bit samples"
        case "sBIT":
            // The significant bits of each channel, 1 up to the samples' depth (a palette's: 8).
            guard data.count == channels else { return "\(bytes(data.count)) where this colour type takes \(channels)" }
            let depth = colorType == .palette ? 8 : bitDepth
            return data.allSatisfy { (1...depth).contains(Int($0)) } ? nil : "a channel's bits outside 1-\(depth)"
        case "sPLT":
            // A name, NUL, a sample depth of 8 or 16, then entries of 6 or 10 bytes.
            guard let nul = data.firstIndex(of: 0), nul >= 1, nul <= 79, nul + 1 < data.count else {
                return "no palette name or sample depth"
            }
            let depth = data[nul + 1], entries = data.count - nul - 2
            guard depth == 8 || depth == 16 else { return "sample depth \(depth) (8 or 16)" }
            return entries % (depth == 8 ? 6 : 10) == 0 ? nil : "entries of the wrong length"
        case "eXIf":
            return Exif(data) != nil ? nil : "not a TIFF stream (no II or MM byte order, 42 and a first directory)"
        case "tEXt":
            guard let nul = data.firstIndex(of: 0) else { return "no keyword" }
            return keywordProblem(data[..<nul])
        case "zTXt":
            guard let nul = data.firstIndex(of: 0), nul + 1 < data.count else { return "no keyword or compression method" }
            if let problem = keywordProblem(data[..<nul]) { return problem }
            guard data[nul + 1] == 0 else { return "unknown compression method \(data[nul + 1])" }
            return inflateProblem(data[(nul + 2)...], what: "text")
        case "iTXt":
            guard let nul = data.firstIndex(of: 0), nul + 2 < data.count else { return "no keyword or compression flag" }
            if let problem = keywordProblem(data[..<nul]) { return problem }
            let compressed = data[nul + 1], method = data[nul + 2]
            guard compressed == 0 || compressed == 1, method == 0 else { return "unknown compression flag or method" }
            guard compressed == 1 else { return nil }
            // Language tag and translated keyword, each NUL-terminated, precede the text.
            guard let language = data[(nul + 3)...].firstIndex(of: 0),
                  let translated = data[(language + 1)...].firstIndex(of: 0) else {
                return "no language tag or translated keyword"
            }
            return inflateProblem(data[(translated + 1)...], what: "text")
        default:
            return nil
        }
    }

    /// Why a text chunk's keyword is not one: 1-79 printable Latin-1 characters, no space leading, trailing or
    /// doubled (PNG §11.3.3.2; pngcheck: "zero length tEXt keyword").
    private static func keywordProblem(_ keyword: ArraySlice<UInt8>) -> String? {
        guard (1...79).contains(keyword.count) else { return "a keyword of \(keyword.count) characters (1-79)" }
        let printable = keyword.allSatisfy { (32...126).contains($0) || (161...255).contains($0) }
        let spaced = keyword.first == 32 || keyword.last == 32 || zip(keyword, keyword.dropFirst()).contains { $0 == 32 && $1 == 32 }
        return printable && !spaced ? nil : "a keyword with a character or space no keyword may have"
    }

    /// The profile's colour space, or why iCCP is unusable.
    static func inspectProfile(_ data: [UInt8]) -> (colorSpace: String?, problem: String?) {
        guard let nul = data.firstIndex(of: 0), nul >= 1, nul <= 79, nul + 1 < data.count else {
            return (nil, "no profile name or compression method")
        }
        guard data[nul + 1] == 0 else { return (nil, "unknown compression method \(data[nul + 1])") }
        // The header and a tag table of up to 74 entries: most profiles list 10-20 tags.
        var head = [UInt8](repeating: 0, count: 1024)
        var total = 0
        let result = data[(nul + 2)...].withUnsafeBufferPointer { compressed in
            cpng_inflate_check(compressed.baseAddress, compressed.count, maxInflatedBytes, &head, head.count, &total)
        }
        switch result {
        case 0: break
        case 2: return (nil, "the profile inflates to more than \(maxInflatedBytes >> 20) MiB")
        default: return (nil, "the compressed profile is damaged")
        }
        if let damage = ColorProfile.damage(head.prefix(min(total, head.count)), size: total) {
            return (nil, "the profile is damaged (\(damage))")
        }
        return (ColorProfile(name: "", bytes: Array(head.prefix(128))).colorSpace, nil)
    }

    /// Why a zlib stream does not inflate, or nil.
    private static func inflateProblem(_ compressed: ArraySlice<UInt8>, what: String) -> String? {
        let result = compressed.withUnsafeBufferPointer { bytes in
            cpng_inflate_check(bytes.baseAddress, bytes.count, maxInflatedBytes, nil, 0, nil)
        }
        switch result {
        case 0: return nil
        case 2: return "the compressed \(what) inflates to more than \(maxInflatedBytes >> 20) MiB"
        default: return "the compressed \(what) is damaged"
        }
    }
}

extension PNGMetadata {
    /// The chunks to write for an output of `colorType` at `bitDepth`, keeping
    /// the kinds in `keep`, and those left out because they no longer hold:
    /// - sBIT and sPLT describe the source's format: kept only when the output
    ///   has the same colour type and bit depth; bKGD is written in the output's
    ///   form where that says the same colour (``background(_:from:depth:to:depth:palette:)``;
    ///   a palette output's `palette` is Kiln's own, in its own order); hIST (a
    ///   count per entry of the source's palette) never holds;
    /// - an ICC profile must match the output: an RGB profile cannot tag a
    ///   gray output (e.g. after `--grayscale`), nor a gray one an RGB output;
    /// - tRNS is written from the pixels, tIME anew; an unknown chunk is kept
    ///   only when safe to copy (PNG spec §5.4);
    /// - a chunk the specification allows once is written once (the first),
    ///   in its allowed place: a late eXIf moved up, any other late one left
    ///   out (``PNGChunkRules``).
    public func chunks(forOutput colorType: PNGColorType, bitDepth: Int, keep: MetadataSelection, palette: [UInt8] = [])
        -> (chunks: [PNGChunk], dropped: [DroppedMetadata])
    {
        let outputIsGray = colorType == .gray || colorType == .grayAlpha
        let sameFormat = colorType == sourceColorType && bitDepth == sourceBitDepth
        var kept: [PNGChunk] = []
        var dropped: [DroppedMetadata] = []
        // Reading kept one of each already; metadata made otherwise gets the same rule.
        for chunk in PNGChunkRules.firstOfEachSingleton(chunks).chunks {
            guard let kind = MetadataSelection.kind(of: chunk), keep.contains(kind) else { continue }
            switch chunk.type {
            case "hIST":
                let reason = colorType == .palette ? "the output's palette is not the source's" : "the output has no palette"
                dropped.append(DroppedMetadata(type: chunk.type, reason: reason, isNotable: false))
                continue
            case "bKGD" where !sameFormat || colorType == .palette:
                guard let data = Self.background(chunk.data, from: sourceColorType, depth: sourceBitDepth, to: colorType,
                                                 depth: bitDepth, palette: palette) else {
                    let reason = sourceColorType == .palette ? "the output's palette is not the source's"
                        : colorType == .palette ? "the output's palette does not hold its colour"
                        : "the output's colour type or bit depth cannot say its colour"
                    dropped.append(DroppedMetadata(type: chunk.type, reason: reason, isNotable: false))
                    continue
                }
                // After PLTE, where the specification puts it: a source without one read it as before PLTE.
                kept.append(PNGChunk(type: chunk.type, data: data, placement: .beforeImageData))
                continue
            case "sBIT", "sPLT":
                guard sameFormat else {
                    dropped.append(DroppedMetadata(type: chunk.type, reason: "the output's colour type or bit depth differs from the source's",
                                                isNotable: false))
                    continue
                }
            case "iCCP":
                let space = Self.inspectProfile(chunk.data).colorSpace ?? "RGB "
                if space != (outputIsGray ? "GRAY" : "RGB ") {
                    dropped.append(DroppedMetadata(
                        type: chunk.type,
                        reason: "\(ColorProfile.article(space)) colour profile cannot describe a \(outputIsGray ? "gray" : "colour") output",
                        isNotable: true))
                    continue
                }
            default:
                break
            }
            kept.append(chunk)
        }
        return (kept, dropped)
    }

    /// Whether the source had a tIME chunk (the output then gets one saying when it was made).
    public var hasTime: Bool { chunks.contains { $0.type == "tIME" } }
}
