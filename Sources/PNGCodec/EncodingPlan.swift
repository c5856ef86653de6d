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
    /// The fast path's deflater and level, or nil for libpng and zlib. Levels
    /// 1-6 take it: images of at least 256 KiB at ISA-L's level 1, in segments
    /// on every core (on W1 its levels 2 and 3 were no smaller, only slower),
    /// smaller ones whole on one core: libdeflate at the requested level, or
    /// Huffman coding alone where that is smaller (noise-like rows); on S1's
    /// 32×32 outputs a third of zlib's time, for files no larger. 0 (stored), 7-9 (zlib's
    /// smallest output) and an explicit `.none` filter go through libpng.
    var fast: FastDeflate?

    /// A deflater of the fast path (`CPNG_DEFLATER_*`) and its level.
    struct FastDeflate: Equatable {
        var deflater: Int32
        var level: Int
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
        if (1...6).contains(options.level) && adaptiveFilters && options.deflater == .automatic {
            fast = rawBytes >= Self.smallestSegmentedImage
                ? FastDeflate(deflater: CPNG_DEFLATER_ISAL, level: 1)
                : FastDeflate(deflater: CPNG_DEFLATER_WHOLE, level: options.level)
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
