public import ImageCore

/// Decodes any valid PNG into the canonical `PixelBuffer` (SPEC §4.1).
///
/// All color types and bit depths, palettes with tRNS, tRNS color keys and
/// Adam7 are supported. Samples are exact: palettes and tRNS expanded, bit
/// depths below 8 scaled up by bit replication, sBIT, gamma and color chunks
/// ignored. Sources of at most 8 bits decode to `.eight`, 16-bit ones to
/// `.sixteen`. Corrupt input (bad CRC in a critical chunk, truncation, bad
/// zlib data or checksum, extra image data) throws `PNGError`; it never
/// crashes, prints, or is silently accepted. Thread-safe: no shared state.
public enum PNGDecoder {
    /// Decodes PNG bytes in memory.
    /// - Throws: `PNGError`.
    public static func decode(_ bytes: [UInt8], limits: Limits = Limits()) throws -> PixelBuffer {
        try decodeWithHeader(bytes, limits: limits).pixels
    }

    /// Decodes PNG bytes in memory without copying them.
    /// - Throws: `PNGError`.
    public static func decode(_ bytes: UnsafeRawBufferPointer, limits: Limits = Limits()) throws -> PixelBuffer {
        try decodeWithHeader(bytes, limits: limits).pixels
    }

    /// Decodes the PNG file at `path`, streaming it (the file is never held
    /// in memory whole). Errors do not name the path: prefix it yourself.
    /// - Throws: `PNGError`.
    public static func decode(contentsOf path: String, limits: Limits = Limits()) throws -> PixelBuffer {
        try decodeWithHeader(contentsOf: path, limits: limits).pixels
    }

    /// Decodes PNG bytes in memory and also returns what the source declared.
    /// - Throws: `PNGError`.
    public static func decodeWithHeader(_ bytes: [UInt8], limits: Limits = Limits()) throws
        -> (header: PNGHeader, pixels: PixelBuffer)
    {
        try bytes.withUnsafeBytes { try decodeWithHeader($0, limits: limits) }
    }

    /// Decodes PNG bytes in memory, without copying them, and also returns
    /// what the source declared.
    /// - Throws: `PNGError`.
    public static func decodeWithHeader(_ bytes: UnsafeRawBufferPointer, limits: Limits = Limits()) throws
        -> (header: PNGHeader, pixels: PixelBuffer)
    {
        let session = try DecoderSession(memory: bytes, limits: limits)
        let header = session.header
        return (header, try session.decodePixels(limits: limits))
    }

    /// Decodes the PNG file at `path` and also returns what it declared.
    /// - Throws: `PNGError`.
    public static func decodeWithHeader(contentsOf path: String, limits: Limits = Limits()) throws
        -> (header: PNGHeader, pixels: PixelBuffer)
    {
        let session = try DecoderSession(path: path, limits: limits)
        let header = session.header
        return (header, try session.decodePixels(limits: limits))
    }

    /// Decodes the PNG file at `path` and also returns what it declared and
    /// its ancillary information (``PNGMetadata``: colour profile, text, EXIF,
    /// resolution, …). A damaged ancillary chunk is left out of the metadata
    /// and named in its `warnings`; it never fails the image.
    /// - Throws: `PNGError`.
    public static func decodeWithMetadata(contentsOf path: String, limits: Limits = Limits()) throws
        -> (header: PNGHeader, pixels: PixelBuffer, metadata: PNGMetadata)
    {
        let session = try DecoderSession(path: path, limits: limits, keepMetadata: true)
        let header = session.header
        let (pixels, metadata) = try session.decodeWithMetadata(limits: limits)
        return (header, pixels, metadata)
    }

    /// As ``decodeWithMetadata(contentsOf:limits:)``, from PNG bytes in memory.
    /// - Throws: `PNGError`.
    public static func decodeWithMetadata(_ bytes: [UInt8], limits: Limits = Limits()) throws
        -> (header: PNGHeader, pixels: PixelBuffer, metadata: PNGMetadata)
    {
        try bytes.withUnsafeBytes { memory in
            let session = try DecoderSession(memory: memory, limits: limits, keepMetadata: true)
            let header = session.header
            let (pixels, metadata) = try session.decodeWithMetadata(limits: limits)
            return (header, pixels, metadata)
        }
    }

    /// Which decoder to use, for tests and benchmarks: both must give the same pixels.
    public enum Path: Sendable {
        /// The fast path where it applies, libpng otherwise (what every public entry point does).
        case automatic
        /// libpng alone (the oracle).
        case libpng
    }

    /// Decodes PNG bytes with the chosen path, saying whether the fast path
    /// decoded them (for tests and benchmarks; the other entry points use `.automatic`).
    /// - Throws: `PNGError`.
    public static func decode(_ bytes: [UInt8], limits: Limits = Limits(), path: Path) throws -> (PixelBuffer, fastPath: Bool) {
        try bytes.withUnsafeBytes { memory in
            try DecoderSession(memory: memory, limits: limits, libpngOnly: path == .libpng)
                .decodePixelsReportingPath(limits: limits)
        }
    }

    /// Reads only the header (the chunks up to the first IDAT) of PNG bytes.
    /// Does not apply `Limits` beyond libpng's per-side bound, so callers can
    /// report the size of an image too large to decode.
    /// - Throws: `PNGError`.
    public static func readHeader(_ bytes: [UInt8]) throws -> PNGHeader {
        try bytes.withUnsafeBytes { try DecoderSession(memory: $0, limits: headerLimits).header }
    }

    /// Reads only the header of the PNG file at `path`.
    /// - Throws: `PNGError`.
    public static func readHeader(contentsOf path: String) throws -> PNGHeader {
        try DecoderSession(path: path, limits: headerLimits).header
    }

    /// Limits that let any PNG-legal size through to the caller.
    private static let headerLimits = Limits(maxPixels: Int.max)
}
