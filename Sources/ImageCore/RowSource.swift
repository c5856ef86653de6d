/// Rows of a canonical image (SPEC §4.1): what the streaming render stage pulls
/// its input from, a strip at a time.
public protocol RowSource {
    /// Width in pixels.
    var width: Int { get }
    /// Height in pixels.
    var height: Int { get }
    /// Bits per channel of the canonical rows.
    var depth: PixelBuffer.Depth { get }
    /// Writes canonical rows `rows` into `destination`, one after another
    /// (`rows.count × width × 4 × bytesPerSample` bytes). A source that is not
    /// a ``RandomAccessRowSource`` (a decoder) reads forward only, each row at
    /// most once: `rows` must start at or after the end of the previous read;
    /// rows in between are skipped.
    /// - Throws: the codec's error when the source is damaged.
    func read(_ rows: Range<Int>, into destination: UnsafeMutableRawPointer) throws
    /// Every row not read yet as one canonical buffer (SPEC §8's exceptions: an image that decodes whole, or one
    /// read backwards). Must be the first read. A source that holds its image whole (a WebP's decoder) gives that
    /// image, sharing its storage, rather than a copy (an 8000×6000 WebP was held twice); the default copies.
    /// - Throws: the source's error.
    func readAll() throws -> PixelBuffer
}

extension RowSource {
    /// Reads every row into a new canonical buffer (see the requirement).
    /// - Throws: the source's error.
    public func readAll() throws -> PixelBuffer {
        let count = width * height * 4 * depth.bytesPerSample
        var failure: (any Error)?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do {
                try read(0..<height, into: buffer.baseAddress!)
                initialized = count
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return PixelBuffer(width: width, height: height, depth: depth, bytes: bytes)
    }
}

/// Rows that may be read in any order, and in parts, from several threads at
/// once (a decoded buffer): what a rotation reads rectangles of.
public protocol RandomAccessRowSource: RowSource {
    /// Writes the canonical samples of `columns` of row `row` into `destination`.
    func read(columns: Range<Int>, of row: Int, into destination: UnsafeMutableRawPointer)
}

extension PixelBuffer: RandomAccessRowSource {

    public func read(_ rows: Range<Int>, into destination: UnsafeMutableRawPointer) throws {
        bytes.withUnsafeBytes { bytes in
            destination.copyMemory(from: bytes.baseAddress! + rows.lowerBound * rowBytes, byteCount: rows.count * rowBytes)
        }
    }

    public func read(columns: Range<Int>, of row: Int, into destination: UnsafeMutableRawPointer) {
        bytes.withUnsafeBytes { bytes in
            destination.copyMemory(from: bytes.baseAddress! + row * rowBytes + columns.lowerBound * bytesPerPixel,
                                   byteCount: columns.count * bytesPerPixel)
        }
    }
}
