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
    /// Whether its colours are Adobe RGB because its EXIF, before the pixels, says so: the metadata at the end says so too.
    private let coloursFromExif: Bool
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
        (leadingMetadata, coloursFromExif) = Self.leading(session.metadata().imageMetadata, gray: header.isGray)
        try limits.check(pngHeader)
    }

    /// As ``init(contentsOf:limits:)``, over PNG bytes in memory (copied once).
    /// `libpngOnly` skips the fast path (the tests' oracle).
    /// - Throws: `PNGError`.
    public init(bytes: [UInt8], limits: PNGDecoder.Limits, libpngOnly: Bool = false) throws {
        session = try DecoderSession(copying: bytes, limits: limits, keepMetadata: true, libpngOnly: libpngOnly)
        pngHeader = session.header
        header = pngHeader.imageHeader
        (leadingMetadata, coloursFromExif) = Self.leading(session.metadata().imageMetadata, gray: header.isGray)
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
        var metadata = session.metadata().imageMetadata
        // The colours are what came before the pixels said (a conversion took them from there): an eXIf saying Adobe RGB
        // after them is too late (an output without a conversion was tagged Adobe RGB, a converted one read as sRGB).
        if coloursFromExif {
            metadata.takeColoursFromExif()
        } else if !header.isGray, metadata.colorProfile == nil, !metadata.saysSRGB, metadata.exif.flatMap(Exif.init)?.saysAdobeRGB == true {
            metadata.warnings.append("eXIf says Adobe RGB (InteropIndex R03) after the image data, too late to be used: the "
                                     + "colours were read as the chunks before it say")
        }
        return metadata
    }

    /// `metadata` (what the chunks before the pixels give) with Adobe RGB taken from an eXIf among them that says so
    /// (``ImageMetadata/takeColoursFromExif()``), unless the pixels are `gray` (they have no primaries: an RGB
    /// profile would make them colour); and whether it was.
    private static func leading(_ metadata: ImageMetadata, gray: Bool) -> (ImageMetadata, Bool) {
        var metadata = metadata
        guard !gray, metadata.colorProfile == nil else { return (metadata, false) }
        metadata.takeColoursFromExif()
        return (metadata, metadata.colorProfile != nil)
    }
}
