import Color
import CWebP
import Foundation
public import ImageCore

extension ImageFormat {
    /// WebP; outputs are named `.webp`.
    public static let webp = ImageFormat(name: "webp", fileExtension: "webp", title: "WebP")
}

/// Why a WebP could not be decoded or encoded.
public enum WebPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The data is not a WebP file.
    case notWebP(String)
    /// The data ends before the image does.
    case truncated(String)
    /// libwebp found the data corrupt.
    case corrupt(String)
    /// A valid WebP Kiln does not read (an animation).
    case unsupported(String)
    /// Memory ran out.
    case outOfMemory(String)
    /// The file cannot be read.
    case io(String)
    /// The declared size has more pixels than the limits allow.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// An output larger than a WebP holds (16383 pixels a side), whatever the input was.
    case tooLargeToWrite(width: Int, height: Int)

    init(_ status: cwebp_status) {
        let message = withUnsafeBytes(of: status.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        switch status.code {
        case CWEBP_NOT_WEBP: self = .notWebP(message)
        case CWEBP_TRUNCATED: self = .truncated(message)
        case CWEBP_UNSUPPORTED: self = .unsupported(message)
        case CWEBP_NO_MEMORY: self = .outOfMemory(message)
        default: self = .corrupt(message)
        }
    }

    /// A one-line reason, e.g. `"truncated WebP: the data ends before the image does"`.
    public var description: String {
        switch self {
        case .notWebP(let detail): detail
        case .truncated(let detail): "truncated WebP: \(detail)"
        case .corrupt(let detail): "corrupt WebP: \(detail)"
        case .unsupported(let detail): "unsupported WebP: \(detail)"
        case .outOfMemory(let detail): "out of memory: \(detail)"
        case .io(let detail): "I/O error: \(detail)"
        case .tooManyPixels(let width, let height, let limit):
            "image too large: \(width)×\(height) = \(width * height) pixels exceeds the limit of \(limit)"
        case .tooLargeToWrite(let width, let height):
            "cannot be written as WebP: \(width) × \(height) pixels, and a WebP holds at most "
                + "\(WebPWriter.maxDimension) × \(WebPWriter.maxDimension)"
        }
    }
}

/// WebP as the image core sees it, through libwebp: lossy, lossless and alpha
/// in; lossy (`--quality`, default 80) or `--lossless` out; ICCP, EXIF and XMP
/// chunks both ways. libwebp decodes and encodes a whole picture: the reader
/// and the writer hold the image (SPEC §8's exception). An animation is refused.
public struct WebPImageCodec: ImageCodec {
    /// The codec.
    public init() {}

    /// The default `--quality` of lossy output.
    public static let defaultQuality = 80

    public var format: ImageFormat { .webp }

    /// "RIFF", the RIFF size (any), "WEBP".
    public var signature: [UInt8?] { Array("RIFF".utf8) + [nil, nil, nil, nil] + Array("WEBP".utf8) }

    public func reader(contentsOf path: String, limits: DecodingLimits) throws -> any ImageReader {
        try WebPReader(bytes: try Self.contents(of: path), limits: limits)
    }

    public func reader(bytes: [UInt8], limits: DecodingLimits) throws -> any ImageReader {
        try WebPReader(bytes: bytes, limits: limits)
    }

    /// From the file's first 64 KiB where the header is in them (it was read whole: 40 WebPs of 13 MB took 3.2 s
    /// to plan, every input's header being read before the first image); else, or when they do not make a
    /// header, from the whole container (``contents(of:)``), which says what is wrong.
    public func header(contentsOf path: String) throws -> ImageHeader {
        if let handle = FileHandle(forReadingAtPath: path) {
            defer { try? handle.close() }
            let size = Self.containerBytes(of: handle)
            try? handle.seek(toOffset: 0)
            if let first = try? handle.read(upToCount: 64 << 10), first.count < size {
                var info = cwebp_info()
                var status = cwebp_status()
                let read = [UInt8](first).withUnsafeBufferPointer {
                    cwebp_read_info($0.baseAddress, $0.count, 0, &info, &status)
                }
                if read == CWEBP_OK { return WebPReader.header(info, fileSize: size) }
            }
        }
        return try WebPReader(bytes: try Self.contents(of: path), limits: DecodingLimits(maxPixels: Int.max)).header
    }

    /// What the encode holds at its peak: the rows held whole (4 bytes a pixel; 8 at 16 bits, beside their 8-bit
    /// copy, and freed before libwebp starts: the sink hands them over, ``PixelBufferSink/takeImage()``) and then
    /// the 8-bit rows with libwebp's picture and buffers. Measured (2026-11-28: 6000 × 4000, peak RSS less the 43
    /// MB of the same export streamed to PNG): lossy 10.3 bytes a pixel in all, 19.3 with alpha (its plane is coded
    /// lossless); lossless 36.6 at the default effort and at quality 100 (24.5 at effort 0, 32 at 6). A 16-bit
    /// source under the --memory its estimate names (317M) peaked at 309 MB. Lossless at effort 5 and a quality above
    /// 75 holds more, 41 bytes a pixel, and at effort 6 and quality 100 the most, 48 (these at 3000 × 2000, less the
    /// 30 MB of kiln itself; effort 6 at 75 and 90 held what 4 does, 33). Before, 14 bytes a pixel for every kind:
    /// a lossless output went past `--memory` (an 8000 × 6000 one peaked at 1.17 GB under 861M), and lossy ones
    /// without alpha were refused under budgets they fit in.
    public func writerBytes(width: Int, height: Int, depth: PixelBuffer.Depth, settings: WriteSettings) -> Int {
        let rows = 4 * depth.bytesPerSample + (depth == .sixteen ? 4 : 0)
        let quality = settings.quality ?? WebPImageCodec.defaultQuality
        let encoder = !settings.lossless ? (settings.content?.alpha ?? true ? 20 : 11)
            : settings.effort == 6 && quality == 100 ? 52 : settings.effort == 5 && quality > 75 ? 44 : 38
        return width * height * max(rows, encoder)
    }

    public func checkSize(width: Int, height: Int) throws {
        try WebPWriter.checkSize(width: width, height: height)
    }

    public func writer(width: Int, height: Int, depth: PixelBuffer.Depth, settings: WriteSettings,
                       output: any EncodedOutput) throws -> any ImageWriter {
        try WebPWriter(width: width, height: height, depth: depth, settings: settings, output: output)
    }

    /// The same bytes; or, with `tolerance` above 0, the same chunks but for the coded
    /// image (``WebPLayout``: metadata, lossy or lossless) and samples within
    /// `tolerance`. Pixels alone would take an output with the metadata `--strip` removes
    /// for this work (found 2026-11-27, eighth session). A lossy file's quality is inside
    /// its coded image: another quality whose samples all stay within `tolerance` would
    /// pass, which a photo's do not.
    public func sameWork(_ a: [UInt8], _ b: [UInt8], tolerance: Int) -> Bool {
        sameLayoutAndSamples(a, b, tolerance: tolerance, layout: WebPLayout.chunks)
    }

    /// The file's RIFF container: as many bytes as its header says (libwebp reads no further), or the file's first
    /// 12 bytes where they are no RIFF WebP header (they say why it is not one). Before, the whole file was read:
    /// a WebP with 2 GB appended held 4 GB and then failed as needing 2 GB; a JPEG's start followed by 2 GB of
    /// zeros (which no signature names, so every reader is tried) held 4 GB in this reader.
    private static func contents(of path: String) throws(WebPError) -> [UInt8] {
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            let size = containerBytes(of: handle)
            try handle.seek(toOffset: 0)
            return [UInt8](try handle.read(upToCount: size) ?? Data())
        } catch {
            throw .io("cannot read the file (\(error.localizedDescription))")
        }
    }

    /// The bytes of the file open in `handle` that hold its RIFF container: 8 + the RIFF size (at most the file's
    /// size), or up to 12 when it starts with no RIFF WebP header. Leaves the handle anywhere.
    private static func containerBytes(of handle: FileHandle) -> Int {
        let fileSize = (try? handle.seekToEnd()).map(Int.init) ?? 0
        try? handle.seek(toOffset: 0)
        guard let riff = WebPLayout.riffSize((try? handle.read(upToCount: 12)) ?? Data()) else { return min(fileSize, 12) }
        return min(fileSize, 8 + riff)
    }
}

/// A WebP decoded whole on the first read (libwebp has no row-by-row decode
/// Kiln uses): the header, limits and metadata are read at once, the pixels
/// when the render asks for the first rows.
public final class WebPReader: ImageReader {
    public private(set) var header: ImageHeader
    /// The ICCP, EXIF and XMP chunks (a WebP's metadata precedes its image in the container Kiln reads).
    public let leadingMetadata: ImageMetadata
    private var bytes: [UInt8]
    private var image: PixelBuffer?
    private var nextRow = 0

    /// The header `info` describes, of a RIFF container of `fileSize` bytes (the file's bytes kiln reads).
    static func header(_ info: cwebp_info, fileSize: Int) -> ImageHeader {
        let width = Int(info.width), height = Int(info.height)
        var header = ImageHeader(format: .webp, width: width, height: height, depth: .eight, hasAlpha: info.has_alpha != 0,
                                 decodesWhole: true)
        header.isLossless = info.lossless != 0
        // The file, and what libwebp holds whole while it decodes: a lossless image's ARGB pixels (4 bytes a pixel:
        // an 8000×6000 one peaked at 531 MiB under --memory 500M, counted 336 MB), a lossy one's alpha plane.
        header.heldInputBytes = fileSize + width * height * (header.isLossless ? 4 : header.hasAlpha ? 1 : 0)
        return header
    }

    /// Reads the header and chunks of the WebP in `bytes` and checks `limits`.
    /// - Throws: `WebPError` (an animation is refused).
    public init(bytes: [UInt8], limits: DecodingLimits) throws(WebPError) {
        var info = cwebp_info()
        var status = cwebp_status()
        guard cwebp_read_info(bytes, bytes.count, 1, &info, &status) == CWEBP_OK else { throw WebPError(status) }
        let width = Int(info.width), height = Int(info.height)
        if limits.violation(width: width, height: height, depth: .eight) != nil {
            throw .tooManyPixels(width: width, height: height, limit: limits.maxPixels)
        }
        var icc = cwebp_chunk(), exif = cwebp_chunk(), xmp = cwebp_chunk()
        guard cwebp_read_chunks(bytes, bytes.count, &icc, &exif, &xmp, &status) == CWEBP_OK else { throw WebPError(status) }
        func copy(_ chunk: cwebp_chunk) -> [UInt8]? {
            chunk.size > 0 ? [UInt8](UnsafeBufferPointer(start: chunk.data, count: chunk.size)) : nil
        }
        var metadata = ImageMetadata()
        metadata.warnings += Self.unreadChunks(in: bytes, read: ["ICCP": icc.size > 0, "EXIF": exif.size > 0, "XMP ": xmp.size > 0])
        if let profile = copy(icc) {
            if let damage = ColorProfile.damage(profile[...], size: profile.count) {
                metadata.warnings.append("ICCP: the ICC profile is damaged (\(damage)); the profile is left out")
            } else {
                metadata.colorProfile = ColorProfile(name: "ICC profile", bytes: profile)
            }
        }
        // Some writers put JPEG's "Exif\0\0" before the TIFF stream.
        if let exif = copy(exif) {
            metadata.takeExif(exif.starts(with: Array("Exif".utf8) + [0, 0]) ? Array(exif.dropFirst(6)) : exif, from: "EXIF")
        }
        metadata.xmp = copy(xmp)
        metadata.takeColoursFromExif()
        header = Self.header(info, fileSize: bytes.count)
        leadingMetadata = metadata
        self.bytes = bytes
    }

    /// What the metadata chunks of the RIFF container in `bytes` hold that libwebp's demuxer does not read (`read`:
    /// whether it gave each kind), one sentence each: a kind given twice (the first is read, as vips reads it), and
    /// one its VP8X header does not flag (libwebp, and so browsers and vips, read none such). Before, both were
    /// passed over without a word: an orientation or a Display P3 profile not flagged vanished, colours shifting.
    static func unreadChunks(in bytes: [UInt8], read: [String: Bool]) -> [String] {
        func littleEndian(_ at: Int) -> Int { bytes[at..<at + 4].reversed().reduce(0) { $0 << 8 | Int($1) } }
        // Within the RIFF container (what follows it is no chunk of the picture's); an empty chunk is none.
        guard bytes.count >= 12 else { return [] }
        let end = min(bytes.count, 8 + littleEndian(4))
        var counts: [String: Int] = [:]
        var at = 12
        while at + 8 <= end {
            let name = String(decoding: bytes[at..<at + 4], as: UTF8.self), size = littleEndian(at + 4)
            if read[name] != nil, size > 0 { counts[name, default: 0] += 1 }
            at += 8 + size + size % 2
        }
        return ["ICCP", "EXIF", "XMP "].compactMap { kind in
            let shown = kind.trimmingCharacters(in: .whitespaces), count = counts[kind] ?? 0
            if count > 0, read[kind] == false {
                return "\(shown): the VP8X header does not flag this chunk, so it is not read (libwebp and the browsers "
                    + "do not read it either)"
            }
            return count > 1 ? "\(shown): more than one \(shown) chunk; the first is read, the others left out" : nil
        }
    }

    public func read(_ rows: Range<Int>, into destination: UnsafeMutableRawPointer) throws {
        precondition(rows.lowerBound >= nextRow && rows.upperBound <= height, "rows \(rows) read out of order")
        try decodedImage().read(rows, into: destination)
        nextRow = rows.upperBound
    }

    /// Shrink-on-load, as JPEG's DCT scaling: the largest of 1/8, 1/4, 1/2 of each side, rounded up, that keeps at
    /// least 5/4 of `width × height`, libwebp's rescaler averaging the picture onto that many pixels as it decodes
    /// (the whole image was decoded, then resized: an 8000×6000 WebP fitted to 800 wide held 246 MB). Only an opaque
    /// image: libwebp averages straight colour, where kiln resamples premultiplied (transparent pixels lend no
    /// colour). Where the factor does not divide a side, the rescaler spreads the picture over the rounded-up count
    /// of pixels (the ratio a little under the factor), and the shrunk picture's extent says so: a 6000×3999 WebP
    /// fitted to 400 wide was decoded whole (142 MB; 44 MB for 6000×4000).
    public func reduce(toAtLeast width: Int, _ height: Int) throws -> Bool {
        precondition(image == nil && nextRow == 0, "reduce before the first read")
        guard !header.hasAlpha, header.shrunkFrom == nil else { return false }
        let full = (width: header.width, height: header.height)
        func shrunk(_ side: Int, by factor: Int) -> Int { (side + factor - 1) / factor }
        guard let factor = [8, 4, 2].first(where: {
            4 * shrunk(full.width, by: $0) >= 5 * width && 4 * shrunk(full.height, by: $0) >= 5 * height
        }) else { return false }
        let decoded = (width: shrunk(full.width, by: factor), height: shrunk(full.height, by: factor))
        header.shrunkFrom = ShrinkOnLoad(width: full.width, height: full.height, spanWidth: Double(decoded.width),
                                         spanHeight: Double(decoded.height))
        (header.width, header.height) = decoded
        return true
    }

    /// The decoded image itself, its storage shared, not copied (the first read).
    public func readAll() throws -> PixelBuffer {
        precondition(nextRow == 0, "readAll after rows were read")
        nextRow = height
        return try decodedImage()
    }

    public func abandon() {
        image = nil
        bytes = []
        nextRow = height
    }

    /// Decodes the image if it was not yet (the whole file is checked), and returns the metadata.
    public func finish() throws -> ImageMetadata {
        _ = try decodedImage()
        image = nil
        nextRow = height
        return leadingMetadata
    }

    private func decodedImage() throws(WebPError) -> PixelBuffer {
        if let image { return image }
        let count = width * height * 4
        var status = cwebp_status()
        let samples = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let code = cwebp_decode_rgba(bytes, bytes.count, buffer.baseAddress, count, Int32(width), Int32(height), &status)
            initialized = code == CWEBP_OK ? count : 0
        }
        guard status.code == CWEBP_OK else { throw WebPError(status) }
        let decoded = PixelBuffer(width: width, height: height, depth: .eight, bytes: samples)
        image = decoded
        return decoded
    }
}

/// Writes one WebP: the rows are held (libwebp encodes a whole picture), 16-bit
/// rows rounded to 8 bits, then encoded lossy or lossless with the kept chunks.
public final class WebPWriter: ImageWriter {
    private let rows: PixelBufferSink
    private let settings: WriteSettings
    private let output: any EncodedOutput

    public var width: Int { rows.width }
    public var height: Int { rows.height }
    public var depth: PixelBuffer.Depth { rows.depth }

    /// The most pixels a side of a WebP holds.
    public static let maxDimension = 16383

    /// Throws `WebPError.tooLargeToWrite` for an image over ``maxDimension`` pixels a side.
    static func checkSize(width: Int, height: Int) throws(WebPError) {
        guard width <= maxDimension, height <= maxDimension else { throw .tooLargeToWrite(width: width, height: height) }
    }

    /// A writer of a `width × height` image at `depth`, writing the file to `output` at the end.
    /// - Throws: `WebPError.tooLargeToWrite` for an image over 16383 pixels a side (before any row is held).
    public init(width: Int, height: Int, depth: PixelBuffer.Depth, settings: WriteSettings,
                output: any EncodedOutput) throws(WebPError) {
        try Self.checkSize(width: width, height: height)
        rows = PixelBufferSink(width: width, height: height, depth: depth)
        self.settings = settings
        self.output = output
    }

    public func write(_ rows: Range<Int>, _ fill: (UnsafeMutableRawPointer) throws -> Void) throws {
        try self.rows.write(rows, fill)
    }

    public func finish(metadata: ImageMetadata?, progress: EncodeProgress?) throws -> [DroppedMetadata] {
        var image = rows.takeImage()
        if image.depth == .sixteen {
            let samples = image.bytes.withUnsafeBytes { raw in
                raw.bindMemory(to: UInt16.self).map { UInt8((UInt32($0) * 255 + 32767) / 65535) }
            }
            image = PixelBuffer(width: width, height: height, depth: .eight, bytes: samples)
        }
        let metadata = metadata ?? ImageMetadata()
        // A WebP is RGB: a gray profile cannot tag it.
        let grayDrop = settings.keep.contains(.icc) ? metadata.colorProfile?.colourOutputDrop : nil
        let icc = settings.keep.contains(.icc) && grayDrop == nil ? metadata.colorProfile?.bytes ?? [] : []
        let exif = settings.keep.contains(.exif) ? metadata.exif ?? [] : []
        let xmp = settings.keep.contains(.text) ? metadata.xmp ?? [] : []
        var dropped: [DroppedMetadata] = (grayDrop.map { [$0] } ?? []) + DroppedMetadata.jpegOnly(in: metadata, keep: settings.keep,
                                                                                             format: "WebP")
        if settings.keep.contains(.text), !metadata.text.isEmpty {
            dropped.append(DroppedMetadata(type: "text", reason: "a WebP output keeps XMP, not a PNG's text entries (Title, "
                                           + "Author, Description, Comment, …) nor a JPEG's comments", isNotable: true))
        }
        var status = cwebp_status()
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let quality = Float(settings.quality ?? WebPImageCodec.defaultQuality)
        // libwebp's hook reaches `progress` through an unretained pointer, valid while `progress` lives (the call).
        var hook = cwebp_progress()
        if let progress {
            hook.done = { context, fraction in
                Unmanaged<EncodeProgress>.fromOpaque(context!).takeUnretainedValue().report(fraction)
            }
            hook.context = Unmanaged.passUnretained(progress).toOpaque()
        }
        defer { withExtendedLifetime(progress) {} }
        func encode() -> Int32 {
            icc.withUnsafeBufferPointer { icc in
                exif.withUnsafeBufferPointer { exif in
                    xmp.withUnsafeBufferPointer { xmp in
                        cwebp_encode(image.bytes, UInt32(width), UInt32(height), settings.lossless ? 1 : 0, quality,
                                     Int32(clamping: settings.effort),
                                     cwebp_chunk(data: icc.baseAddress, size: icc.count),
                                     cwebp_chunk(data: exif.baseAddress, size: exif.count),
                                     cwebp_chunk(data: xmp.baseAddress, size: xmp.count), &hook, &output, &size, &status)
                    }
                }
            }
        }
        // libwebp reports in percents, and not at all in its last stage (its tokens written: over a minute on a
        // detailed 16000 × 12000 picture): the thread's CPU time fills the silence.
        let code = progress.map { $0.reportingWork(below: 0.01, encode) } ?? encode()
        guard code == CWEBP_OK, let output else { throw WebPError(status) }
        defer { cwebp_free(output) }
        try self.output.write(UnsafeRawBufferPointer(start: output, count: size))
        return dropped
    }
}
