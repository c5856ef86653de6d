/// A PNG decoded a strip of rows at a time (SPEC §8): memory follows the
/// width, not the area. Rows come forward only; ``finish()`` reads the rest of
/// the stream, so an image is accepted only when the whole file is valid,
/// whatever part of it the caller needed. Adam7-interlaced files are the
/// exception: the decoder holds them whole, in canonical form.
///
/// Not thread-safe: one reader is used by one thread at a time.
public final class PNGRowReader: RowSource {
    /// What the file declares.
    public let header: PNGHeader
    private var session: DecoderSession
    /// Rows read or skipped so far.
    private var nextRow = 0

    /// Opens the PNG file at `path` and reads its header; ancillary chunks are
    /// kept for ``finish()``. Checks `limits` against the header before anything
    /// image-sized exists.
    /// - Throws: `PNGError`.
    public init(contentsOf path: String, limits: PNGDecoder.Limits) throws {
        session = try DecoderSession(path: path, limits: limits, keepMetadata: true)
        header = session.header
        try limits.check(header)
    }

    /// As ``init(contentsOf:limits:)``, over PNG bytes in memory (copied once).
    /// `libpngOnly` skips the fast path (the tests' oracle).
    /// - Throws: `PNGError`.
    public init(bytes: [UInt8], limits: PNGDecoder.Limits, libpngOnly: Bool = false) throws {
        session = try DecoderSession(copying: bytes, limits: limits, keepMetadata: true, libpngOnly: libpngOnly)
        header = session.header
        try limits.check(header)
    }

    public var width: Int { header.width }
    public var height: Int { header.height }
    public var depth: PixelBuffer.Depth { header.decodedDepth }

    public func read(_ rows: Range<Int>, into destination: UnsafeMutableRawPointer) throws {
        precondition(rows.lowerBound >= nextRow && rows.upperBound <= height, "rows \(rows) read out of order")
        if rows.lowerBound > nextRow { try session.readRows(rows.lowerBound - nextRow, into: nil) }
        try session.readRows(rows.count, into: destination)
        nextRow = rows.upperBound
    }

    /// Reads every row not read yet, as a whole canonical buffer (the exception
    /// of SPEC §8: interlaced input, or an operation that reads rows backwards).
    /// - Throws: `PNGError`.
    public func readRemaining() throws -> PixelBuffer {
        precondition(nextRow == 0, "readRemaining after a partial read")
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

    /// Reads the rest of the file to IEND (rows nobody asked for included) and
    /// returns its ancillary information. The image is valid only when this returns.
    /// - Throws: `PNGError`.
    public func finish() throws -> PNGMetadata {
        try session.finish()
        nextRow = height
        return session.metadata()
    }
}
