import CJPEG
public import ImageCore

/// A JPEG decoded a scanline at a time (SPEC §8): baseline or progressive,
/// gray, YCbCr or RGB, restart markers, into canonical 8-bit RGBA rows.
/// Rows come forward only; ``finish()`` reads the rest of the stream to EOI,
/// so an image is accepted only when the whole file is valid. libjpeg's
/// warnings (corrupt or truncated data) fail the image.
///
/// Not thread-safe: one reader is used by one thread at a time.
public final class JPEGRowReader: ImageReader {
    public let header: ImageHeader
    /// Every APP segment precedes the image data in a JPEG: this is the whole.
    public let leadingMetadata: ImageMetadata
    private let decoder: JPEGDecoder
    /// Rows read or skipped so far.
    private var nextRow = 0

    /// Opens the JPEG file at `path`, reads its header, checks `limits`, and
    /// starts decoding at 1/`scale` of its size (DCT scaling: 1, 2, 4 or 8).
    /// - Throws: `JPEGError`.
    public convenience init(contentsOf path: String, limits: DecodingLimits, scale: Int = 1) throws(JPEGError) {
        try self.init(try JPEGDecoder(path: path), limits: limits, scale: scale)
    }

    /// As ``init(contentsOf:limits:scale:)``, over JPEG bytes in memory (copied once).
    /// - Throws: `JPEGError`.
    public convenience init(bytes: [UInt8], limits: DecodingLimits, scale: Int = 1) throws(JPEGError) {
        try self.init(try JPEGDecoder(copying: bytes), limits: limits, scale: scale)
    }

    private init(_ decoder: consuming JPEGDecoder, limits: DecodingLimits, scale: Int) throws(JPEGError) {
        let width = Int(decoder.info.image_width), height = Int(decoder.info.image_height)
        if limits.violation(width: width, height: height, depth: .eight) != nil {
            throw .tooManyPixels(width: width, height: height, limit: limits.maxPixels)
        }
        guard decoder.info.rows == CJPEG_ROWS_RGBA else {
            throw .unsupported("CMYK and YCCK JPEGs are not read yet")
        }
        try decoder.start(scale: scale)
        var metadata = JPEGSegment.metadata(of: decoder.segments())
        if metadata.colorProfile?.colorSpace == "GRAY" && decoder.info.components == 1 {
            // The rows are RGB: a gray profile no longer describes them.
            metadata.colorProfile = nil
            metadata.warnings.append("APP2: the gray ICC profile does not describe the RGB rows; it is left out")
        }
        header = ImageHeader(format: .jpeg, width: Int(decoder.info.width), height: Int(decoder.info.height),
                             depth: .eight, hasAlpha: false, decodesWhole: false)
        leadingMetadata = metadata
        self.decoder = decoder
    }

    public func read(_ rows: Range<Int>, into destination: UnsafeMutableRawPointer) throws {
        precondition(rows.lowerBound >= nextRow && rows.upperBound <= height, "rows \(rows) read out of order")
        if rows.lowerBound > nextRow { try decoder.readRows(rows.lowerBound - nextRow, into: nil) }
        try decoder.readRows(rows.count, into: destination)
        nextRow = rows.upperBound
    }

    /// Reads the rows nobody asked for and the rest of the stream to EOI, and
    /// returns the metadata. The image is valid only when this returns.
    /// - Throws: `JPEGError`.
    public func finish() throws -> ImageMetadata {
        try decoder.finish()
        nextRow = height
        return leadingMetadata
    }
}
