public import ImageCore

/// A PNG decoded a strip of rows at a time (SPEC §8): memory follows the
/// width, not the area. Rows come forward only; ``finish()`` reads the rest of
/// the stream, so an image is accepted only when the whole file is valid,
/// whatever part of it the caller needed. Adam7-interlaced files are the
/// exception: read whole (``readAll()``), their passes are built in the caller's
/// buffer; read a strip at a time, the decoder holds them whole (canonical form,
/// or a palette image's indices).
///
/// Not thread-safe: one reader is used by one thread at a time.
public final class PNGRowReader: ImageReader {
    /// What the file declares, in PNG's terms.
    public let pngHeader: PNGHeader
    /// What the file declares.
    public let header: ImageHeader
    /// The chunks before IDAT, as the decoder kept them while reading the
    /// header (it reads up to the image data to know the image).
    public let leadingMetadata: ImageMetadata
    private var session: DecoderSession
    /// Rows read or skipped so far.
    private var nextRow = 0

    /// Opens the PNG file at `path` and reads its header; ancillary chunks are
    /// kept for ``finish()``. Checks `limits` against the header before anything
    /// image-sized exists.
    /// - Throws: `PNGError`.
    public init(contentsOf path: String, limits: PNGDecoder.Limits) throws {
        session = try DecoderSession(path: path, limits: limits, keepMetadata: true)
        pngHeader = session.header
        header = pngHeader.imageHeader
        leadingMetadata = session.metadata().imageMetadata
        try limits.check(pngHeader)
    }

    /// As ``init(contentsOf:limits:)``, over PNG bytes in memory (copied once).
    /// `libpngOnly` skips the fast path (the tests' oracle).
    /// - Throws: `PNGError`.
    public init(bytes: [UInt8], limits: PNGDecoder.Limits, libpngOnly: Bool = false) throws {
        session = try DecoderSession(copying: bytes, limits: limits, keepMetadata: true, libpngOnly: libpngOnly)
        pngHeader = session.header
        header = pngHeader.imageHeader
        leadingMetadata = session.metadata().imageMetadata
        try limits.check(pngHeader)
    }

    public func read(_ rows: Range<Int>, into destination: UnsafeMutableRawPointer) throws {
        precondition(rows.lowerBound >= nextRow && rows.upperBound <= height, "rows \(rows) read out of order")
        if rows.lowerBound > nextRow { try session.readRows(rows.lowerBound - nextRow, into: nil) }
        try session.readRows(rows.count, into: destination)
        nextRow = rows.upperBound
    }

    /// Reads the rest of the file to IEND (rows nobody asked for included) and
    /// returns its ancillary information. The image is valid only when this returns.
    /// - Throws: `PNGError`.
    public func finish() throws -> ImageMetadata {
        try session.finish()
        nextRow = height
        return session.metadata().imageMetadata
    }
}
