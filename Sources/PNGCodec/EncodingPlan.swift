import ImageCore
import CPNG

/// How one image will be written: its lossless output format (chosen from its
/// pixels when they are held, else from what the rows can hold) plus the
/// compression settings. Later reductions (palette, 16→8 bits) plug in here.
struct EncodingPlan {
    var colorType: PNGColorType
    var bitDepth: Int
    var level: Int
    var adaptiveFilters: Bool
    /// The fast path's deflater, level and filter heuristic, or nil for libpng
    /// and zlib. Levels 1-9 take it: images of at least 256 KiB in segments on
    /// every core (``FastDeflate/segmented(level:)``), smaller ones whole on
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

        /// What `--level` 1-9 means for an image deflated in segments, so that each
        /// level is smaller and slower than the one before (W1 fit to 1920, BENCHMARKS.md):
        /// 1, ISA-L's level 1 with libpng's least-sum filter choice (the fastest);
        /// 2, the same with the least-entropy choice (1.3 % smaller); 3-9, zlib
        /// at that level, least entropy. Rejected: ISA-L's levels 2 and 3 (no
        /// smaller than its 1, or larger: 43.0, 43.0 and 43.6 MB for W1) and
        /// zlib's 2 (43.9 MB, larger than ISA-L's 1); least entropy cut W1 by
        /// 1.3-1.7 % at every level it was tried (1, 3, 4, 6).
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

    /// The plan for a `width × height` image at `depth` written as `colorType`.
    init(width: Int, height: Int, depth: PixelBuffer.Depth, colorType: PNGColorType, options: PNGEncoder.Options) throws {
        guard (0...9).contains(options.level) else {
            throw PNGError.invalidArgument("compression level \(options.level) is outside 0...9")
        }
        guard width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw PNGError.invalidArgument("\(width)×\(height) exceeds PNG's 2147483647 per side")
        }
        self.colorType = colorType
        bitDepth = depth.rawValue
        level = options.level
        switch options.filter {
        case .automatic: adaptiveFilters = options.level > 0
        case .none: adaptiveFilters = false
        case .adaptive: adaptiveFilters = true
        }
        // Both deflaters give the same bytes for the same pixels every time,
        // which resume's byte identity relies on.
        let rawBytes = width * height * depth.bytesPerSample * colorType.channels
        if (1...9).contains(options.level) && adaptiveFilters && options.deflater == .automatic {
            fast = rawBytes < Self.smallestSegmentedImage
                ? FastDeflate(deflater: CPNG_DEFLATER_WHOLE, level: options.level, heuristic: CPNG_FILTER_SUM)
                : .segmented(level: options.level)
        }
    }

    /// The plan for `image`, in the smallest exact colour type of its pixels.
    init(image: PixelBuffer, options: PNGEncoder.Options) throws {
        try self.init(width: image.width, height: image.height, depth: image.depth,
                      colorType: Self.losslessColorType(of: image), options: options)
    }

    /// Stored bytes from which an image is deflated by ISA-L in segments on
    /// every core; below, it is deflated whole on one (`cpng_deflate_whole`).
    static let smallestSegmentedImage = 256 << 10

    /// Gray when r == g == b everywhere; alpha only when some pixel is not opaque.
    static func losslessColorType(of image: PixelBuffer) -> PNGColorType {
        var allGray: Int32 = 0
        var allOpaque: Int32 = 0
        image.bytes.withUnsafeBytes {
            cpng_analyze_rgba($0.baseAddress, image.pixelCount, Int32(image.depth.rawValue), &allGray, &allOpaque)
        }
        switch (allGray != 0, allOpaque != 0) {
        case (true, true): return .gray
        case (true, false): return .grayAlpha
        case (false, true): return .rgb
        case (false, false): return .rgba
        }
    }
}
