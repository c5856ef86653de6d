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
    /// - Throws: `PNGError` when the source is damaged.
    func read(_ rows: Range<Int>, into destination: UnsafeMutableRawPointer) throws
}

/// Rows that may be read in any order, and in parts (a decoded buffer): what
/// a rotation reads rectangles of.
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
