/// Where canonical rows go, top to bottom, each once: an encoder, or a buffer
/// (SPEC §8: the render stage hands its packed rows on strip by strip).
public protocol RowSink: AnyObject {
    /// Width in pixels of the rows it takes.
    var width: Int { get }
    /// Rows it takes in all.
    var height: Int { get }
    /// Bits per channel of the rows.
    var depth: PixelBuffer.Depth { get }
    /// Hands `fill` the memory for canonical rows `rows` (they follow the rows
    /// written before), then takes them. The memory is valid only during `fill`.
    /// - Throws: what `fill` throws, or the sink's own error.
    func write(_ rows: Range<Int>, _ fill: (UnsafeMutableRawPointer) throws -> Void) throws
}

extension RowSink {
    /// Bytes per canonical row.
    public var rowBytes: Int { width * 4 * depth.bytesPerSample }

    /// Writes every row of `image` (of the sink's size and depth).
    public func write(_ image: PixelBuffer) throws {
        precondition(image.width == width && image.height == height && image.depth == depth, "image does not match the sink")
        try write(0..<height) { destination in try image.read(0..<image.height, into: destination) }
    }
}

/// A sink that collects the rows into a ``PixelBuffer``.
public final class PixelBufferSink: RowSink {
    public let width: Int
    public let height: Int
    public let depth: PixelBuffer.Depth
    private var bytes: [UInt8]
    /// Rows written so far.
    private var written = 0

    /// A sink for a `width × height` image at `depth`.
    public init(width: Int, height: Int, depth: PixelBuffer.Depth) {
        self.width = width
        self.height = height
        self.depth = depth
        // Not zeroed: every row is written before ``image()`` hands them on (it checks), and
        // pages untouched until their rows come are not resident while the render runs
        // (zeroing a held W1 output's 8 MB up front put it all in RSS at the render's peak).
        let count = width * height * 4 * depth.bytesPerSample
        bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let base = buffer.baseAddress { HugePages.advise(base, bytes: count) }
            initialized = count
        }
    }

    public func write(_ rows: Range<Int>, _ fill: (UnsafeMutableRawPointer) throws -> Void) throws {
        precondition(rows.lowerBound == written && rows.upperBound <= height, "rows \(rows) written out of order")
        let rowBytes = self.rowBytes
        try bytes.withUnsafeMutableBytes { try fill($0.baseAddress! + rows.lowerBound * rowBytes) }
        written = rows.upperBound
    }

    /// The image, handed over: the sink keeps none of it (a WebP writer held its 16-bit rows beside their 8-bit
    /// copy and libwebp's picture, 8 bytes a pixel more than it was admitted with). Every row must have been written.
    public func takeImage() -> PixelBuffer {
        precondition(written == height, "\(height - written) rows were never written")
        defer { bytes = [] }
        return PixelBuffer(width: width, height: height, depth: depth, bytes: bytes)
    }
}
