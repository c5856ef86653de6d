public import ImageCore

/// PNG as the image core sees it: the reader is ``PNGRowReader``, the writer
/// ``PNGWriter``; files are recognised by PNG's 8-byte signature.
public struct PNGImageCodec: ImageCodec {
    /// The codec.
    public init() {}

    public var format: ImageFormat { .png }

    /// The PNG signature (PNG specification §5.2).
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    public var signatureLength: Int { Self.signature.count }

    public func recognizes(_ prefix: ArraySlice<UInt8>) -> Bool {
        prefix.elementsEqual(Self.signature)
    }

    public func reader(contentsOf path: String, limits: DecodingLimits) throws -> any ImageReader {
        try PNGRowReader(contentsOf: path, limits: limits)
    }

    public func reader(bytes: [UInt8], limits: DecodingLimits) throws -> any ImageReader {
        try PNGRowReader(bytes: bytes, limits: limits)
    }

    public func header(contentsOf path: String) throws -> ImageHeader {
        try PNGDecoder.readHeader(contentsOf: path).imageHeader
    }

    /// The rows held whole, their filtered form and their encoding.
    public func writerBytes(width: Int, height: Int, depth: PixelBuffer.Depth, settings: WriteSettings) -> Int {
        3 * width * height * 4 * depth.bytesPerSample
    }

    public func writer(width: Int, height: Int, depth: PixelBuffer.Depth, settings: WriteSettings) throws -> any ImageWriter {
        try PNGWriter(width: width, height: height, depth: depth, settings: settings)
    }

    public func sameWork(_ a: [UInt8], _ b: [UInt8], tolerance: Int) -> Bool {
        PNGChunks.sameWork(a, b, tolerance: tolerance)
    }
}

/// Writes one PNG from rows. The rows are held until ``finish()``: the
/// output's colour type is chosen from all of its pixels (gray, alpha), and
/// the image is deflated on all cores at once (``PNGEncoder``).
public final class PNGWriter: ImageWriter {
    private let rows: PixelBufferSink
    private let settings: WriteSettings

    public var width: Int { rows.width }
    public var height: Int { rows.height }
    public var depth: PixelBuffer.Depth { rows.depth }

    /// A writer of a `width × height` image at `depth`.
    /// - Throws: `PNGError.invalidArgument` for a level outside 0…9.
    public init(width: Int, height: Int, depth: PixelBuffer.Depth, settings: WriteSettings) throws {
        guard (0...9).contains(settings.level) else {
            throw PNGError.invalidArgument("compression level \(settings.level) is outside 0...9")
        }
        rows = PixelBufferSink(width: width, height: height, depth: depth)
        self.settings = settings
    }

    public func write(_ rows: Range<Int>, _ fill: (UnsafeMutableRawPointer) throws -> Void) throws {
        try self.rows.write(rows, fill)
    }

    public func finish(metadata: ImageMetadata?, progress: EncodeProgress?) throws -> EncodedImage {
        let chunks = try metadata.map { metadata throws(PNGError) in try PNGMetadata(metadata) }
        let encoded = try PNGEncoder.encode(rows.image(), options: .init(level: settings.level), metadata: chunks,
                                            keep: settings.keep, time: settings.time, progress: progress)
        return EncodedImage(bytes: encoded.bytes, dropped: encoded.dropped)
    }
}
