/// Rows of a canonical image (SPEC §4.1): what the streaming render stage pulls
/// its input from, a strip at a time.
public protocol RowSource {
    /// Width in pixels.
    var width: Int { get }
    /// Height in pixels.
    var height: Int { get }
    /// Bits per channel of the canonical rows.
    var depth: PixelBuffer.Depth { get }
    /// Whether rows may be read in any order (a decoded buffer), or only
    /// forward, each row at most once (a decoder).
    var isRandomAccess: Bool { get }
    /// Writes canonical rows `rows` into `destination`, one after another
    /// (`rows.count × width × 4 × bytesPerSample` bytes). A forward-only source
    /// needs `rows` to start at or after the end of the previous read; rows in
    /// between are skipped.
    /// - Throws: `PNGError` when the source is damaged.
    func read(_ rows: Range<Int>, into destination: UnsafeMutableRawPointer) throws
    /// Writes the canonical samples of `columns` of row `row` into `destination`
    /// (random-access sources; the default reads the whole row).
    /// - Throws: `PNGError` when the source is damaged.
    func read(columns: Range<Int>, of row: Int, into destination: UnsafeMutableRawPointer) throws
}

extension RowSource {
    public func read(columns: Range<Int>, of row: Int, into destination: UnsafeMutableRawPointer) throws {
        let pixelBytes = 4 * depth.bytesPerSample
        let line = UnsafeMutableRawPointer.allocate(byteCount: width * pixelBytes, alignment: 16)
        defer { line.deallocate() }
        try read(row..<(row + 1), into: line)
        destination.copyMemory(from: line + columns.lowerBound * pixelBytes, byteCount: columns.count * pixelBytes)
    }
}

extension PixelBuffer: RowSource {
    public var isRandomAccess: Bool { true }

    public func read(_ rows: Range<Int>, into destination: UnsafeMutableRawPointer) throws {
        bytes.withUnsafeBytes { bytes in
            destination.copyMemory(from: bytes.baseAddress! + rows.lowerBound * rowBytes, byteCount: rows.count * rowBytes)
        }
    }

    public func read(columns: Range<Int>, of row: Int, into destination: UnsafeMutableRawPointer) throws {
        bytes.withUnsafeBytes { bytes in
            destination.copyMemory(from: bytes.baseAddress! + row * rowBytes + columns.lowerBound * bytesPerPixel,
                                   byteCount: columns.count * bytesPerPixel)
        }
    }
}
