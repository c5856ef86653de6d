import ImageCore
import CPNG

/// How one image will be written: its lossless stored format — colour type,
/// bit depth, palette — (an exact form of its pixels when they are held, see
/// ``exactForms(of:options:)``, else what the rows can hold) plus the
/// compression settings.
struct EncodingPlan {
    var colorType: PNGColorType
    /// Bits per stored sample: 8 or 16; 1, 2 or 4 for gray and a palette too.
    var bitDepth: Int
    /// The depth of the canonical rows the output is made from (16 may be stored at 8).
    var rowDepth: PixelBuffer.Depth
    /// A palette's RGBA entries, 8 bits each, the non-opaque ones first; empty for other colour types.
    var palette: [UInt8]
    /// Gray or RGB: the colour (canonical red, green, blue) of the pixels that are transparent, told by tRNS.
    var key: [UInt16]?
    var level: Int
    var adaptiveFilters: Bool
    /// The fast path's deflater, level and filter heuristic, or nil for libpng
    /// and zlib. Levels 1-9 take it: images of at least 256 KiB up to
    /// ``largestWholeImage`` as ``FastDeflate/held(level:)`` says (libdeflate
    /// whole at 2-9), larger ones in segments on every core
    /// (``FastDeflate/segmented(level:)``), smaller ones whole on
    /// one core: libdeflate at the requested level, or Huffman coding alone
    /// where that is smaller (noise-like rows); on S1's 32×32 outputs a third
    /// of zlib's time, for files no larger. Level 0 (stored) and an explicit
    /// `.none` filter or `.zlib` deflater go through libpng.
    var fast: FastDeflate?

    /// A deflater of the fast path (`CPNG_DEFLATER_*`) and its level.
    struct FastDeflate: Equatable {
        var deflater: Int32
        var level: Int
        /// How each row's filter is chosen (`CPNG_FILTER_*`).
        var heuristic: Int32

        /// What `--level` 1-9 means for an image deflated in segments (one streamed: over
        /// ``EncodingPlan/largestWholeImage``), so that each
        /// level is smaller and slower than the one before (W1 fit to 1920, BENCHMARKS.md):
        /// 1, ISA-L's level 1 with libpng's least-sum filter choice (the fastest);
        /// 2, the same with the least-entropy choice (1.3 % smaller); 3-9, zlib
        /// at that level, least entropy. Rejected: ISA-L's levels 2 and 3 (no
        /// smaller than its 1, or larger: 43.0, 43.0 and 43.6 MB for W1) and
        /// zlib's 2 (43.9 MB, larger than ISA-L's 1); least entropy cut W1 by
        /// 1.3-1.7 % at every level it was tried (1, 3, 4, 6).
        /// What `--level` 1-9 means for an image deflated whole (under 256 KiB of rows):
        /// libdeflate at that level, its slow near-optimal 10-12 for 7-9 (small images cost
        /// little, and libdeflate's 9 lost to zlib's on PngSuite: 147 of its 161 files no
        /// larger than their input at level 9 against 149 through libpng).
        static func whole(level: Int) -> FastDeflate {
            FastDeflate(deflater: CPNG_DEFLATER_WHOLE, level: level <= 6 ? level : level + 3, heuristic: CPNG_FILTER_SUM)
        }

        /// What `--level` 1-9 means for an image of at least 256 KiB of stored rows that
        /// a writer holds anyway (at most ``EncodingPlan/largestWholeImage`` canonical bytes:
        /// every W1 output): 1, ISA-L's level 1 in segments, least sum (the fastest, as for
        /// segments); 2-3, libdeflate's level 1 on the whole image, least sum; 4-5, its
        /// level 2, 6 its 3, least sum; 7, its 6 with the least-entropy filter choice; 8-9,
        /// zlib at that level in segments, least entropy, as for a streamed image. libdeflate cannot prime a segment with the window
        /// before it nor sync-flush, so it deflates whole, on one core per image; a batch
        /// runs two images at a time, so the cores stay busy without segments.
        ///
        /// Measured (W1 fit to 1920, 2 jobs, CPU time beside ISA-L's level 1, bytes ÷ `vips
        /// thumbnail`'s; BENCHMARKS.md "Levels: libdeflate whole for held images"): ISA-L 1
        /// 0.899; libdeflate 1 +10 % time, 0.853; 2 +22 %, 0.830; 3 +31 %, 0.815; 4 +32 %,
        /// 0.806; with least entropy libdeflate 1 +23 %, 0.841 and 2 +38 %, 0.818: the entropy
        /// choice (five histograms a row) costs more than the next libdeflate level and
        /// saves less, so the levels up to 6 keep the least sum. The default, 6, is the
        /// cheapest setting within issue 26's 0.85 × vips' bytes that is also smaller than
        /// level 1 on RoundTripTests' noisy 700×500 photos: libdeflate's 2 was larger than
        /// ISA-L's 1 on the one with alpha (444,832 and 444,667 bytes), its 3 smaller
        /// (424,106). No setting lies between ISA-L's 1 and libdeflate's 2 in both time and
        /// bytes but libdeflate's 1, so 2-3 and 4-5 share one each (bytes never grow, time
        /// never falls from one level to the next). Rejected: zlib in segments at 3-9 (pigz's way, the design before): zlib's
        /// 6 took 2.6 × libdeflate's 6 for the same bytes (36.26 and 36.25 MB of W1's
        /// filtered rows, 11.0 and 4.2 s on one core), and its 9 more than libdeflate's 12
        /// for 9 % more bytes (W1: 34.17 MB through zlib's 9 in segments, 31.28 MB of filtered
        /// rows through libdeflate's 12) — but one libdeflate call tells no progress until it
        /// ends, and its 12 spent seconds on a 3000×2000 photo, long enough for `--stall-timeout`
        /// to expire honest work (ProgressTruthTests), where zlib's segments each report, so
        /// 8-9 keep zlib's segments; libdeflate's 9 and 12 for 8-9 are for a design that can
        /// report within one call. Huffman coding alone is not tried on these sizes
        /// (whole_deflate.c): its probe chose it for 13 of W1's 29 outputs, two then larger
        /// than ISA-L's level 1.
        static func held(level: Int) -> FastDeflate {
            switch level {
            case ...1: segmented(level: 1)
            case 2...3: FastDeflate(deflater: CPNG_DEFLATER_WHOLE, level: 1, heuristic: CPNG_FILTER_SUM)
            case 4...5: FastDeflate(deflater: CPNG_DEFLATER_WHOLE, level: 2, heuristic: CPNG_FILTER_SUM)
            case 6: FastDeflate(deflater: CPNG_DEFLATER_WHOLE, level: 3, heuristic: CPNG_FILTER_SUM)
            case 7: FastDeflate(deflater: CPNG_DEFLATER_WHOLE, level: 6, heuristic: CPNG_FILTER_ENTROPY)
            default: segmented(level: level)
            }
        }

        static func segmented(level: Int) -> FastDeflate {
            switch level {
            case ...1: FastDeflate(deflater: CPNG_DEFLATER_ISAL, level: 1, heuristic: CPNG_FILTER_SUM)
            case 2: FastDeflate(deflater: CPNG_DEFLATER_ISAL, level: 1, heuristic: CPNG_FILTER_ENTROPY)
            default: FastDeflate(deflater: CPNG_DEFLATER_ZLIB, level: level, heuristic: CPNG_FILTER_ENTROPY)
            }
        }

        /// The zlib stream's two header bytes: deflate with a 32 KiB window, and the
        /// level class zlib itself would write (RFC 1950 FLEVEL); ISA-L's say "fast".
        var zlibHeader: [UInt8] {
            guard deflater != CPNG_DEFLATER_ISAL else { return [0x78, 0x5E] }
            switch level {
            case ..<2: return [0x78, 0x01]
            case 2..<6: return [0x78, 0x5E]
            case 6: return [0x78, 0x9C]
            default: return [0x78, 0xDA]
            }
        }
    }

    /// The plan for a `width × height` image at `depth` written as `colorType` at that depth.
    init(width: Int, height: Int, depth: PixelBuffer.Depth, colorType: PNGColorType, options: PNGEncoder.Options) throws {
        try self.init(width: width, height: height, rowDepth: depth, colorType: colorType, bitDepth: depth.rawValue,
                      options: options)
    }

    /// The plan for a `width × height` image of `rowDepth` rows stored as `colorType` at `bitDepth`
    /// (with `palette`, or a transparent `key`).
    init(width: Int, height: Int, rowDepth: PixelBuffer.Depth, colorType: PNGColorType, bitDepth: Int,
         palette: [UInt8] = [], key: [UInt16]? = nil, options: PNGEncoder.Options) throws {
        guard (0...9).contains(options.level) else {
            throw PNGError.invalidArgument("compression level \(options.level) is outside 0...9")
        }
        guard width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw PNGError.invalidArgument("\(width)×\(height) exceeds PNG's 2147483647 per side")
        }
        self.colorType = colorType
        self.bitDepth = bitDepth
        self.rowDepth = rowDepth
        self.palette = palette
        self.key = key
        level = options.level
        switch options.filter {
        case .automatic: adaptiveFilters = options.level > 0
        case .none: adaptiveFilters = false
        case .adaptive: adaptiveFilters = true
        }
        // Both deflaters give the same bytes for the same pixels every time,
        // which resume's byte identity relies on.
        let rawBytes = height * storedRowBytes(width: width)
        let canonicalRow = width * 4 * rowDepth.bytesPerSample
        let held = height <= Self.largestWholeImage / max(1, canonicalRow)
        if (1...9).contains(options.level) && adaptiveFilters && options.deflater == .automatic {
            fast = rawBytes < Self.smallestSegmentedImage ? .whole(level: options.level)
                : held ? .held(level: options.level) : .segmented(level: options.level)
        }
    }

    /// Stored bytes from which an image is deflated by ISA-L in segments on
    /// every core; below, it is deflated whole on one (`cpng_deflate_whole`).
    static let smallestSegmentedImage = 256 << 10

    /// Canonical bytes up to which an image is deflated whole at levels 3-9
    /// (``FastDeflate/held(level:)``): ``PNGWriter/heldBytes``, so that every image a
    /// writer holds anyway qualifies and every image it streams is deflated in segments.
    /// A bound on the image's size alone: the same image and options give the same bytes
    /// whichever writer path it takes and whatever the load.
    static let largestWholeImage = PNGWriter.heldBytes

    /// The exact forms of the held `image` worth writing (SPEC §4.1), each
    /// decoding to exactly its pixels: `direct` keeps samples — 8 bits when
    /// every 16-bit sample is 257·k, gray when r == g == b everywhere (at 1, 2
    /// or 4 bits when every gray value is exact there), alpha only when some
    /// pixel is not opaque, and not even then when the transparent pixels are
    /// fully so and share a colour no opaque pixel has (a tRNS colour key) —
    /// and `palette`, when the image has at most 256 colours (8-bit), indexes
    /// them at the least depth that holds the count. `gray` false: colour
    /// even where every pixel is neutral (a kept RGB profile tags only colour).
    /// `background`: a kept bKGD's colour (8-bit RGB), appended to the palette as an
    /// opaque entry where no entry has it and there is room, so that the palette
    /// form keeps the chunk (ImageMagick writes a white one in every PNG: a red and
    /// blue image stayed 24-bit RGB, larger than its input, where a palette holds it).
    static func exactForms(of image: PixelBuffer, options: PNGEncoder.Options, gray: Bool = true,
                           background: [UInt8]? = nil) throws -> (direct: EncodingPlan, palette: EncodingPlan?)
    {
        var found = cpng_analysis()
        image.bytes.withUnsafeBytes {
            cpng_analyze_rgba($0.baseAddress, image.pixelCount, Int32(image.depth.rawValue), 1, &found)
        }
        let depth = found.fits_8 != 0 ? 8 : image.depth.rawValue
        let grayDepth = found.gray_depth > 0 ? Int(found.gray_depth) : depth
        let key = found.keyed != 0 ? [found.key.0, found.key.1, found.key.2].map { UInt16($0) } : nil
        let (colorType, bitDepth): (PNGColorType, Int) = switch (gray && found.all_gray != 0, found.all_opaque != 0 || key != nil) {
        case (true, true): (.gray, grayDepth)
        case (true, false): (.grayAlpha, depth)
        case (false, true): (.rgb, depth)
        case (false, false): (.rgba, depth)
        }
        let direct = try EncodingPlan(width: image.width, height: image.height, rowDepth: image.depth,
                                      colorType: colorType, bitDepth: bitDepth,
                                      key: key, options: options)
        let count = Int(found.palette_size)
        guard count > 0 else { return (direct, nil) }
        var entries = withUnsafeBytes(of: found.palette) { Array($0.prefix(4 * count)) }
        if let background, background.count == 3, count < 256,
           !stride(from: 0, to: entries.count, by: 4).contains(where: { Array(entries[$0..<($0 + 3)]) == background }) {
            entries += background + [255]  // opaque, last: the non-opaque entries stay first
        }
        let entryCount = entries.count / 4
        let indexDepth = entryCount <= 2 ? 1 : entryCount <= 4 ? 2 : entryCount <= 16 ? 4 : 8
        return (direct, try EncodingPlan(width: image.width, height: image.height, rowDepth: image.depth,
                                         colorType: .palette, bitDepth: indexDepth, palette: entries, options: options))
    }

    /// Bytes of one stored row (no filter byte).
    func storedRowBytes(width: Int) -> Int {
        withFormat { cpng_format_row_bytes($0, UInt32(width)) }
    }

    /// Calls `body` with the stored format as C sees it (the palette pinned for the call).
    func withFormat<R>(_ body: (UnsafePointer<cpng_format>) throws -> R) rethrows -> R {
        try palette.withUnsafeBufferPointer { entries in
            let format = cpng_format(color_type: Int32(colorType.rawValue), bit_depth: Int32(bitDepth),
                                     row_depth: Int32(rowDepth.rawValue),
                                     palette: palette.isEmpty ? nil : entries.baseAddress,
                                     palette_size: Int32(palette.count / 4), keyed: key == nil ? 0 : 1,
                                     key: (UInt32(key?[0] ?? 0), UInt32(key?[1] ?? 0), UInt32(key?[2] ?? 0)))
            return try withUnsafePointer(to: format) { try body($0) }
        }
    }
}

