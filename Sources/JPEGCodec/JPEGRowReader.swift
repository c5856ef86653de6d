import CJPEG
import Color
public import ImageCore

/// A JPEG decoded a scanline at a time (SPEC §8): baseline or progressive,
/// gray, YCbCr, RGB, CMYK or YCCK (read as inverted, as Photoshop writes them; converted to sRGB through
/// the embedded profile, ``CMYKConverter``), restart markers, into canonical 8-bit RGBA rows.
/// Rows come forward only; ``finish()`` reads the rest of the stream to EOI,
/// so an image is accepted only when the whole file is valid. libjpeg's
/// warnings (corrupt or truncated data) fail the image.
///
/// Not thread-safe: one reader is used by one thread at a time.
public final class JPEGRowReader: ImageReader {
    public private(set) var header: ImageHeader
    /// Every APP segment precedes the image data in a JPEG: this is the whole.
    public private(set) var leadingMetadata: ImageMetadata
    private var decoder: JPEGDecoder
    /// Converts the rows of a CMYK or YCCK JPEG to sRGB (or a `--profile` target); nil for the others.
    private var cmyk: CMYKConverter?
    /// A CMYK JPEG's own profile, which ``convertCMYK(into:)`` converts from.
    private let cmykProfile: ColorProfile?
    /// Whether the rows' scale is fixed (by ``reduce(toAtLeast:_:)`` or the first read).
    private var started = false
    /// Rows read or skipped so far.
    private var nextRow = 0

    /// Opens the JPEG file at `path`, reads its header and checks `limits`.
    /// - Throws: `JPEGError`.
    public convenience init(contentsOf path: String, limits: DecodingLimits) throws(JPEGError) {
        try self.init(try JPEGDecoder(path: path), limits: limits)
    }

    /// As ``init(contentsOf:limits:)``, over JPEG bytes in memory (copied once).
    /// - Throws: `JPEGError`.
    public convenience init(bytes: [UInt8], limits: DecodingLimits) throws(JPEGError) {
        try self.init(try JPEGDecoder(copying: bytes), limits: limits)
    }

    private init(_ decoder: consuming JPEGDecoder, limits: DecodingLimits) throws(JPEGError) {
        let width = Int(decoder.info.image_width), height = Int(decoder.info.image_height)
        if limits.violation(width: width, height: height, depth: .eight) != nil {
            throw .tooManyPixels(width: width, height: height, limit: limits.maxPixels)
        }
        var metadata = JPEGSegment.metadata(of: decoder.segments())
        if decoder.segmentsLeftOut {
            metadata.warnings.append("APP and COM segments past the limits of 1000 of one marker and 64 MiB of metadata are left out")
        }
        cmykProfile = decoder.info.rows == CJPEG_ROWS_CMYK ? metadata.colorProfile : nil
        if decoder.info.rows == CJPEG_ROWS_CMYK {
            do {
                let converter = try CMYKConverter(embedded: metadata.colorProfile)
                metadata.takeConvertedProfile(converter.profile)
                if let warning = converter.warning { metadata.warnings.append(warning) }
                cmyk = converter
            } catch {
                throw .unsupported("\(error)")
            }
        } else {
            cmyk = nil
            // Of colour pixels only: a gray JPEG's have no primaries (an RGB profile made them colour, a gray PNG RGB).
            if decoder.info.components == 3 { metadata.takeColoursFromExif() }
        }
        // A gray JPEG's gray profile stays: its rows are RGB with r = g = b, and the header says gray,
        // so a PNG output is written gray and keeps it; a colour output drops it (its writer says so).
        header = ImageHeader(format: .jpeg, width: width, height: height, depth: .eight, hasAlpha: false,
                             isGray: decoder.info.components == 1, decodesWhole: false)
        // A multi-scan file: every coefficient held, read before the first row (1.8 GB for a 300 MPix progressive
        // photo, which --memory 200M let in, and 3.5 s of a 6.7 s export with no progress: the watchdog stopped it).
        header.heldInputBytes = decoder.info.held_bytes
        header.readsFileFirst = decoder.info.held_bytes > 0
        leadingMetadata = metadata
        self.decoder = decoder
    }

    /// Converts a CMYK JPEG's rows straight into `converter`'s target (`--profile`), with its intent, rather than
    /// into sRGB first, which clipped a wider target to sRGB; no change for another JPEG, or one converted naively.
    /// Before the first row.
    /// - Throws: `JPEGError.unsupported` when lcms2 cannot make sRGB.
    public func convertCMYK(into converter: ColorConverter) throws(JPEGError) {
        precondition(!started, "convertCMYK before the first read")
        guard cmyk != nil else { return }
        do {
            let retargeted = try CMYKConverter(embedded: cmykProfile, into: converter)
            leadingMetadata.takeConvertedProfile(retargeted.profile)
            cmyk = retargeted
        } catch {
            throw .unsupported("\(error)")
        }
    }

    /// DCT scaling: the largest of 1/8, 1/4, 1/2 that keeps the rows at least 5/4 of `width × height`,
    /// leaving Lanczos some of the way. DCT scaling is a block shrink, sharper (more aliased) than
    /// Lanczos: J1's 3840×2160 Elephants shrunk to exactly 1920×1080 came out 31.8 dB from vips'
    /// output; libvips leaves a factor of two, which cost 1.8 × the time on J1 for 1 dB more on its worst image.
    public func reduce(toAtLeast width: Int, _ height: Int) throws -> Bool {
        precondition(!started, "reduce before the first read")
        let full = (width: self.width, height: self.height)
        guard let scale = [8, 4, 2].first(where: {
            4 * ((full.width + $0 - 1) / $0) >= 5 * width && 4 * ((full.height + $0 - 1) / $0) >= 5 * height
        }) else { return false }
        try start(scale: scale)
        return true
    }

    public func read(_ rows: Range<Int>, into destination: UnsafeMutableRawPointer) throws {
        precondition(rows.lowerBound >= nextRow && rows.upperBound <= height, "rows \(rows) read out of order")
        if !started { try start(scale: 1) }
        if rows.lowerBound > nextRow { try decoder.readRows(rows.lowerBound - nextRow, into: nil) }
        try decoder.readRows(rows.count, into: destination)
        cmyk?.convert(destination, count: rows.count * width)
        nextRow = rows.upperBound
    }

    /// Reads the rows nobody asked for and the rest of the stream to EOI, and
    /// returns the metadata. The image is valid only when this returns.
    /// - Throws: `JPEGError`.
    public func finish() throws -> ImageMetadata {
        if !started { try start(scale: 1) }
        try decoder.finish()
        nextRow = height
        return leadingMetadata
    }

    public func observeFirstRead(_ progress: @escaping (Double) -> Void) {
        precondition(nextRow == 0, "observeFirstRead before the first read")
        decoder.onProgress(progress)
    }

    public func abandon() {
        decoder.abandon()
        started = true
        nextRow = height
    }

    /// Fixes the rows at 1/`scale` of the size; the header then says their size.
    private func start(scale: Int) throws(JPEGError) {
        let stored = ShrinkOnLoad(width: header.width, height: header.height, factor: scale)
        try decoder.scale(by: scale)
        started = true
        header.width = Int(decoder.info.width)
        header.height = Int(decoder.info.height)
        if scale > 1 { header.shrunkFrom = stored }
    }
}
