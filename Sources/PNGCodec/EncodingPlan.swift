import CPNG

/// How one image will be written: the lossless output format chosen from its
/// pixels plus the compression settings. Later reductions (palette, 16→8 bits)
/// and the parallel deflate writer plug in here.
struct EncodingPlan {
    var colorType: PNGColorType
    var bitDepth: Int
    var level: Int
    var adaptiveFilters: Bool
    /// The ISA-L level of the fast path, or nil for libpng and zlib: levels
    /// 1-6 of images of at least 256 KiB take the fast path at ISA-L's level 1 (on W1 its levels 2 and 3
    /// were no smaller, only slower), 0 (stored) and 7-9 (zlib's smallest
    /// output) libpng, as does an explicit `.none` filter.
    var fastLevel: Int?

    init(image: PixelBuffer, options: PNGEncoder.Options) throws {
        guard (0...9).contains(options.level) else {
            throw PNGError.invalidArgument("compression level \(options.level) is outside 0...9")
        }
        guard image.width <= Int(Int32.max), image.height <= Int(Int32.max) else {
            throw PNGError.invalidArgument("\(image.width)×\(image.height) exceeds PNG's 2147483647 per side")
        }
        colorType = EncodingPlan.losslessColorType(of: image)
        bitDepth = image.depth.rawValue
        level = options.level
        switch options.filter {
        case .automatic: adaptiveFilters = options.level > 0
        case .none: adaptiveFilters = false
        case .adaptive: adaptiveFilters = true
        }
        // Small images go through zlib: ISA-L's speed does not matter there, zlib
        // compresses them better, and its output never varies (ISA-L's did, for a
        // few tiny images, under concurrency: see BENCHMARKS.md).
        let rawBytes = image.pixelCount * image.depth.bytesPerSample * colorType.channels
        fastLevel = (1...6).contains(options.level) && adaptiveFilters && options.deflater == .automatic
            && rawBytes >= Self.smallestFastImage ? 1 : nil
    }

    /// Stored bytes below which an image is encoded by zlib even at levels 1-6.
    static let smallestFastImage = 256 << 10

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
