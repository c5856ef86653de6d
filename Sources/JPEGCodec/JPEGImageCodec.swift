import CJPEG
public import ImageCore

extension ImageFormat {
    /// JPEG; outputs are named `.jpg`.
    public static let jpeg = ImageFormat(name: "jpeg", fileExtension: "jpg")
}

/// JPEG as the image core sees it, through libjpeg-turbo: the reader is
/// ``JPEGRowReader``, the writer ``JPEGWriter``; files are recognised by SOI
/// followed by a marker (FF D8 FF).
public struct JPEGImageCodec: ImageCodec {
    /// The codec.
    public init() {}

    /// The default `--quality`.
    public static let defaultQuality = 85

    public var format: ImageFormat { .jpeg }

    /// SOI, then the next marker's 0xFF.
    public var signature: [UInt8?] { [0xFF, 0xD8, 0xFF] }

    public func reader(contentsOf path: String, limits: DecodingLimits) throws -> any ImageReader {
        try JPEGRowReader(contentsOf: path, limits: limits)
    }

    public func reader(bytes: [UInt8], limits: DecodingLimits) throws -> any ImageReader {
        try JPEGRowReader(bytes: bytes, limits: limits)
    }

    public func header(contentsOf path: String) throws -> ImageHeader {
        try JPEGRowReader(contentsOf: path, limits: DecodingLimits(maxPixels: Int.max)).header
    }

    /// A strip of rows, libjpeg's coefficients when it holds them all (optimised
    /// tables, progressive: ``JPEGWriter/holdsCoefficients(width:height:settings:)``),
    /// and the compressed file, held until the metadata before it is known (``compressedBytes(width:height:settings:)``).
    public func writerBytes(width: Int, height: Int, depth: PixelBuffer.Depth, settings: WriteSettings) -> Int {
        let coefficients = JPEGWriter.holdsCoefficients(width: width, height: height, settings: settings)
            ? JPEGWriter.coefficientBytes(width: width, height: height, settings: settings) : 0
        return coefficients + Self.compressedBytes(width: width, height: height, settings: settings)
            + 64 * width * 4 * depth.bytesPerSample
    }

    /// The most bytes the compressed file takes: what uniform colour noise, the least compressible picture, takes at
    /// the quality and subsampling, with standard tables (a third more than optimised ones on noise). Measured on a
    /// 2000×2000 noise image with optimised tables (bytes a pixel, 4:4:4): 0.78 at quality 50, 1.14 at 75, 1.43 at 85,
    /// 1.64 at 90, 2.02 at 95, 2.92 at 100; 4:2:0 about half; with standard tables, 6000×4000 at 100, 4.11.
    /// Before, a byte a pixel was counted whatever the quality: an 8000×6000 noise JPEG at quality 100 took 451 MB
    /// under `--memory 150M`.
    static func compressedBytes(width: Int, height: Int, settings: WriteSettings) -> Int {
        let quality = JPEGWriter.quality(settings)
        // Each band counts what its top quality takes (a third over the optimised measure at its top).
        let full = quality >= 95 ? 4.5 : quality >= 90 ? 3.0 : quality >= 80 ? 2.4 : quality >= 60 ? 2.1 : 1.7
        let share = JPEGWriter.isGray(settings) ? 1.0 / 3 : JPEGWriter.subsampling(settings) == .s420 ? 0.5 : 1
        return Int((Double(width * height) * full * share).rounded(.up)) + (1 << 20)  // and a block begun (jpeg.c)
    }

    public func writer(width: Int, height: Int, depth: PixelBuffer.Depth, settings: WriteSettings,
                       output: any EncodedOutput) throws -> any ImageWriter {
        try JPEGWriter(width: width, height: height, depth: depth, settings: settings, output: output)
    }

    /// The same bytes; or, with `tolerance` above 0, the same segments but for the coded
    /// data and the Huffman tables (metadata, quantization tables, frame and scan headers:
    /// what the options chose) and samples within `tolerance`. Pixels alone would take an
    /// output of other options for this work: one with the metadata `--strip` removes, a
    /// baseline file for `--progressive` (found 2026-11-27, eighth session).
    public func sameWork(_ a: [UInt8], _ b: [UInt8], tolerance: Int) -> Bool {
        sameLayoutAndSamples(a, b, tolerance: tolerance) { JPEGLayout.segments($0, leavingOut: [JPEGLayout.huffmanTables]) }
    }
}

/// Writes one JPEG a strip at a time through libjpeg-turbo: canonical rows
/// (8 or 16 bits) flattened onto ``WriteSettings/background`` and compressed
/// as they come. Optimised Huffman tables need every coefficient held: they
/// are used while those fit ``optimizedCoefficientBound``, standard tables
/// above it (a 400 MPix image still streams). `--progressive` holds them whatever the size.
public final class JPEGWriter: ImageWriter {
    public let width: Int
    public let height: Int
    public let depth: PixelBuffer.Depth
    private let encoder: JPEGEncoder
    private let settings: WriteSettings
    private let output: any EncodedOutput
    /// The rows of the strip being written.
    private var strip: [UInt8] = []
    /// Rows written so far.
    private var written = 0

    /// The most coefficient bytes libjpeg holds for optimised Huffman tables: about 55 MPix at 4:2:0 (3 bytes a
    /// pixel), 28 at 4:4:4 (6), 84 gray (2), so a camera's photo gets them at any quality. Rejected (until
    /// 2026-11-28): 64 MiB, 21 MPix at 4:2:0 but 11 at 4:4:4, the default from quality 90: a 12 MP photo at
    /// quality 90 came out 5.1 % larger than `cjpeg -optimize` and vips' `optimize_coding` make it (6.6 % with
    /// `--subsample 444` at 85), 7.3 % for 24 MP at 4:2:0. Each image's working set counts it
    /// (``JPEGImageCodec/writerBytes(width:height:depth:settings:)``).
    public static let optimizedCoefficientBound = 160 << 20

    /// The bytes of every DCT coefficient of a `width × height` image: 2 bytes a sample, chroma as subsampled
    /// (none in a gray file).
    static func coefficientBytes(width: Int, height: Int, settings: WriteSettings) -> Int {
        let luma = (width + 15) / 16 * 16 * ((height + 15) / 16 * 16)
        let chroma = isGray(settings) ? 0 : subsampling(settings) == .s420 ? luma / 2 : luma * 2
        return 2 * (luma + chroma)
    }

    /// Whether the file is written with one component, as libvips writes a gray image: its rows are gray
    /// and stay so once flattened (opaque, or a gray `--background`). Before, every JPEG had three, so a gray
    /// source's gray ICC profile could not come with it.
    static func isGray(_ settings: WriteSettings) -> Bool {
        guard let content = settings.content, content.gray else { return false }
        return !content.alpha || settings.background.isNeutral
    }

    /// Whether libjpeg holds every coefficient: progressive output, or tables optimised within the bound.
    static func holdsCoefficients(width: Int, height: Int, settings: WriteSettings) -> Bool {
        settings.progressive || optimizes(width: width, height: height, settings: settings)
    }

    /// Whether the tables are optimised: the coefficients fit ``optimizedCoefficientBound`` and what the job's memory
    /// leaves the image (``ImageCore/WriteSettings/heldBytesLimit``).
    static func optimizes(width: Int, height: Int, settings: WriteSettings) -> Bool {
        coefficientBytes(width: width, height: height, settings: settings) <= min(optimizedCoefficientBound, settings.heldBytesLimit)
    }

    static func quality(_ settings: WriteSettings) -> Int { settings.quality ?? JPEGImageCodec.defaultQuality }

    static func subsampling(_ settings: WriteSettings) -> ChromaSubsampling {
        settings.subsampling ?? .default(quality: quality(settings))
    }

    /// A writer of a `width × height` image at `depth`, writing the file to `output` at the end.
    /// - Throws: `JPEGError` (a size over JPEG's 65500 pixels a side, a quality outside 1–100).
    public init(width: Int, height: Int, depth: PixelBuffer.Depth, settings: WriteSettings,
                output: any EncodedOutput) throws(JPEGError) {
        self.width = width
        self.height = height
        self.depth = depth
        self.settings = settings
        self.output = output
        let scale = UInt16(depth == .eight ? 1 : 257)
        let background = settings.background
        var options = cjpeg_encode_options(
            quality: Int32(Self.quality(settings)), progressive: settings.progressive ? 1 : 0,
            subsample_420: Self.subsampling(settings) == .s420 ? 1 : 0,
            optimize: Self.optimizes(width: width, height: height, settings: settings) ? 1 : 0,
            background: (UInt16(background.red) * scale, UInt16(background.green) * scale, UInt16(background.blue) * scale),
            gray: Self.isGray(settings) ? 1 : 0)
        encoder = try JPEGEncoder(width: width, height: height, depth: depth, options: &options)
    }

    public func write(_ rows: Range<Int>, _ fill: (UnsafeMutableRawPointer) throws -> Void) throws {
        precondition(rows.lowerBound == written && rows.upperBound <= height, "rows \(rows) written out of order")
        let count = rows.count * rowBytes
        if strip.count < count { strip = [UInt8](repeating: 0, count: count) }
        try strip.withUnsafeMutableBytes { buffer in
            try fill(buffer.baseAddress!)
            try encoder.write(UnsafeRawPointer(buffer.baseAddress!), rows: rows.count)
        }
        written = rows.upperBound
    }

    /// Completes the stream and puts the kept metadata segments after SOI. The rows were encoded
    /// as they arrived (their progress counted with the render's): `progress` hears nothing more.
    public func finish(metadata: ImageMetadata?, progress: EncodeProgress?) throws -> [DroppedMetadata] {
        precondition(written == height, "\(height - written) rows were never written")
        strip = []
        let pieces = try encoder.finish()
        var (segments, dropped) = JPEGSegment.segments(for: metadata, keep: settings.keep, gray: Self.isGray(settings))
        if encoder.flattened {
            dropped.append(DroppedMetadata(type: "alpha", reason: "JPEG has none; transparent pixels were flattened onto "
                                           + "the background \(settings.background) (--background)", isNotable: true))
        }
        // SOI, the segments, then the rest of the stream.
        guard let first = pieces.first, first.count >= 2 else { throw JPEGError.corrupt("libjpeg wrote no SOI") }
        try output.write(UnsafeRawBufferPointer(rebasing: first.prefix(2)))
        for segment in segments { try output.write(segment.encoded) }
        try output.write(UnsafeRawBufferPointer(rebasing: first.dropFirst(2)))
        for piece in pieces.dropFirst() { try output.write(piece) }
        return dropped
    }
}

/// One open CJPEG encoder; closed on deinit. Not copyable, so the C handle has exactly one owner.
struct JPEGEncoder: ~Copyable {
    private let handle: OpaquePointer

    init(width: Int, height: Int, depth: PixelBuffer.Depth, options: inout cjpeg_encode_options) throws(JPEGError) {
        var status = cjpeg_status()
        guard let handle = cjpeg_encoder_open(UInt32(clamping: width), UInt32(clamping: height), Int32(depth.rawValue),
                                              &options, &status) else { throw JPEGError(status) }
        self.handle = handle
    }

    deinit { cjpeg_encoder_close(handle) }

    /// Compresses `rows` canonical rows at `pointer`.
    func write(_ pointer: UnsafeRawPointer, rows: Int) throws(JPEGError) {
        var status = cjpeg_status()
        guard cjpeg_encoder_write_rows(handle, pointer.assumingMemoryBound(to: UInt8.self), UInt32(rows),
                                       &status) == CJPEG_OK else { throw JPEGError(status) }
    }

    /// Completes the stream (SOI, tables, scans, EOI; no APPn segment) and returns the pieces that hold it, in
    /// order, valid while the encoder lives: not copied (a 6000×4000 noise image at quality 100 held its 98 MB
    /// twice, and more while libjpeg's one buffer grew).
    func finish() throws(JPEGError) -> [UnsafeRawBufferPointer] {
        var status = cjpeg_status()
        guard cjpeg_encoder_finish(handle, &status) == CJPEG_OK else { throw JPEGError(status) }
        return (0..<cjpeg_encoder_block_count(handle)).map { index in
            var size = 0
            return UnsafeRawBufferPointer(start: cjpeg_encoder_block(handle, index, &size), count: size)
        }
    }

    /// Whether a row written had alpha below opaque.
    var flattened: Bool { cjpeg_encoder_flattened(handle) != 0 }
}
