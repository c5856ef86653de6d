public import ImageCore
import CPNG
import Glibc
import Locking

/// PNG as the image core sees it: the reader is ``PNGRowReader``, the writer
/// ``PNGWriter``; files are recognised by PNG's 8-byte signature.
public struct PNGImageCodec: ImageCodec {
    /// The codec.
    public init() {}

    public var format: ImageFormat { .png }

    /// The PNG signature (PNG specification §5.2).
    public var signature: [UInt8?] { [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] }

    public func reader(contentsOf path: String, limits: DecodingLimits) throws -> any ImageReader {
        try PNGRowReader(contentsOf: path, limits: limits)
    }

    public func reader(bytes: [UInt8], limits: DecodingLimits) throws -> any ImageReader {
        try PNGRowReader(bytes: bytes, limits: limits)
    }

    public func header(contentsOf path: String) throws -> ImageHeader {
        try PNGDecoder.readHeader(contentsOf: path).imageHeader
    }

    /// What a ``PNGWriter`` holds: the rows, when it holds them, and their
    /// encoding; else a batch of segments' rows and their compressed form.
    public func writerBytes(width: Int, height: Int, depth: PixelBuffer.Depth, settings: WriteSettings) -> Int {
        let rows = width * height * 4 * depth.bytesPerSample
        guard PNGWriter.streams(width: width, height: height, depth: depth, settings: settings) else { return 2 * rows }
        return PNGWriter.streamingBytes(width: width, depth: depth)
    }

    public func writer(width: Int, height: Int, depth: PixelBuffer.Depth, settings: WriteSettings,
                       output: any EncodedOutput) throws -> any ImageWriter {
        try PNGWriter(width: width, height: height, depth: depth, settings: settings, output: output)
    }

    public func sameWork(_ a: [UInt8], _ b: [UInt8], tolerance: Int) -> Bool {
        PNGChunks.sameWork(a, b, tolerance: tolerance)
    }
}

/// Writes one PNG from rows (SPEC §4.1, §8). An image of up to
/// ``heldBytes`` of canonical rows is held until ``finish(metadata:progress:)``:
/// it is then written in the smallest exact form of all of its pixels (8 bits
/// for 16-bit samples 257·k, gray, no alpha or a tRNS key, a palette when that
/// file is the smaller: ``PNGEncoder``) and deflated on all cores at once. A larger one, whose writer is told what
/// its rows can hold (``WriteSettings/content``), streams: the header is
/// chosen before the first row from that (gray stays gray, alpha is kept when
/// the rows may have some), the chunks before the image data are written at
/// ``begin(metadata:progress:)``, and the rows are compressed and written to the output
/// as they arrive, so what it holds follows the width.
public final class PNGWriter: ImageWriter {
    public let width: Int
    public let height: Int
    public let depth: PixelBuffer.Depth
    private let settings: WriteSettings
    private let output: any EncodedOutput
    private let mode: Mode
    /// The chunks ``begin(metadata:progress:)`` wrote before the image data (streaming).
    private var leading: [PNGChunk] = []
    /// Whether ``begin(metadata:progress:)`` wrote a tIME.
    private var wroteTime = false
    /// The rows of the strip being written (streaming).
    private var strip: [UInt8] = []

    private enum Mode {
        /// Rows collected, encoded at the end.
        case holding(PixelBufferSink)
        /// Rows compressed as they come, in the layout `plan` says.
        case streaming(PNGStream, EncodingPlan)
    }

    /// The most canonical bytes a writer holds to choose the exact smallest
    /// form from the pixels (64 MiB: 16 megapixels at 8 bits, every W1
    /// wallpaper); above, an image streams if its content is known. Held, it
    /// costs its rows and its encoded form (two for an image of at most 256
    /// colours, the palette one about a quarter of the rows or less), which
    /// ``PNGImageCodec/writerBytes(width:height:depth:settings:)`` counts as
    /// the rows' size again.
    public static let heldBytes = 64 << 20

    /// Whether a writer of this image with `settings` streams rather than holds (more than `held` bytes of rows).
    static func streams(width: Int, height: Int, depth: PixelBuffer.Depth, settings: WriteSettings,
                        held: Int = heldBytes) -> Bool {
        settings.content != nil && width * height * 4 * depth.bytesPerSample > held
    }

    /// About the most a streaming writer holds: the rows of a batch of segments
    /// (one per core, at least a megabyte each) and the 32 KiB before them,
    /// their compressed form and an IDAT's worth of stream, or, through
    /// libpng, a few rows and zlib's window.
    static func streamingBytes(width: Int, depth: PixelBuffer.Depth) -> Int {
        let row = width * 4 * depth.bytesPerSample
        let cores = CPUThreads.cores
        return 2 * cores * (max(PNGStream.Segments.segmentBytes, row) + row) + (2 << 20) + 4 * row
    }

    /// A writer of a `width × height` image at `depth`, writing to `output`.
    /// - Throws: `PNGError.invalidArgument` for a level outside 0…9.
    public convenience init(width: Int, height: Int, depth: PixelBuffer.Depth, settings: WriteSettings,
                            output: any EncodedOutput) throws {
        try self.init(width: width, height: height, depth: depth, settings: settings, output: output,
                      holdingAtMost: Self.heldBytes)
    }

    /// A writer that holds at most `held` bytes of rows (tests stream small images).
    init(width: Int, height: Int, depth: PixelBuffer.Depth, settings: WriteSettings, output: any EncodedOutput,
         holdingAtMost held: Int) throws {
        guard (0...9).contains(settings.level) else {
            throw PNGError.invalidArgument("compression level \(settings.level) is outside 0...9")
        }
        self.width = width
        self.height = height
        self.depth = depth
        self.settings = settings
        self.output = output
        if let content = settings.content,
           Self.streams(width: width, height: height, depth: depth, settings: settings, held: held) {
            let colorType: PNGColorType = switch (content.gray, content.alpha) {
            case (true, false): .gray
            case (true, true): .grayAlpha
            case (false, false): .rgb
            case (false, true): .rgba
            }
            let plan = try EncodingPlan(width: width, height: height, depth: depth, colorType: colorType,
                                        options: .init(level: settings.level))
            mode = .streaming(PNGStream(width: width, height: height, plan: plan, output: output), plan)
        } else {
            mode = .holding(PixelBufferSink(width: width, height: height, depth: depth))
        }
    }

    public func begin(metadata: ImageMetadata?, progress: EncodeProgress?) throws {
        guard case .streaming(let stream, let plan) = mode else { return }
        stream.progress = progress
        let source = try metadata.map { metadata throws(PNGError) in try PNGMetadata(metadata) }
        leading = source?.chunks(forOutput: plan.colorType, bitDepth: plan.bitDepth, keep: settings.keep, palette: plan.palette).chunks
            .filter { $0.placement != .afterImageData } ?? []
        wroteTime = source?.hasTime == true && settings.keep.contains(.time)
        try stream.begin(chunks: leading, time: wroteTime ? settings.time : nil)
    }

    public func write(_ rows: Range<Int>, _ fill: (UnsafeMutableRawPointer) throws -> Void) throws {
        switch mode {
        case .holding(let sink):
            try sink.write(rows, fill)
        case .streaming(let stream, let plan):
            let count = rows.count * rowBytes
            if strip.count < count { strip = [UInt8](repeating: 0, count: count) }
            try strip.withUnsafeMutableBytes { buffer in
                try fill(buffer.baseAddress!)
                try Self.check(buffer.baseAddress!, pixels: rows.count * width, depth: depth, fit: plan.colorType)
                try stream.append(buffer.baseAddress!, count: rows.count)
            }
        }
    }

    /// Refuses rows the chosen colour type would change (a colour pixel in a gray
    /// file, alpha below opaque in a file without alpha): what the rows can hold
    /// was misjudged, and the picture must never change silently.
    private static func check(_ rows: UnsafeRawPointer, pixels: Int, depth: PixelBuffer.Depth,
                              fit colorType: PNGColorType) throws {
        guard colorType != .rgba else { return }
        var found = cpng_analysis()
        cpng_analyze_rgba(rows, pixels, Int32(depth.rawValue), 0, &found)
        let needsColor = found.all_gray == 0 && (colorType == .gray || colorType == .grayAlpha)
        let needsAlpha = found.all_opaque == 0 && (colorType == .gray || colorType == .rgb)
        guard !needsColor && !needsAlpha else {
            throw PNGError.invalidArgument("rows with \(needsColor ? "colour" : "transparency") reached a PNG whose "
                                           + "header, written before them, has none")
        }
    }

    public func finish(metadata: ImageMetadata?, progress: EncodeProgress?) throws -> [DroppedMetadata] {
        let source = try metadata.map { metadata throws(PNGError) in try PNGMetadata(metadata) }
        let iptc = DroppedMetadata.jpegOnly(in: metadata, keep: settings.keep, format: "PNG")
        switch mode {
        case .holding(let sink):
            let image = sink.takeImage()
            return try PNGEncoder.encode(image, options: .init(level: settings.level), metadata: source,
                                         keep: settings.keep, time: settings.time, progress: progress, to: output) + iptc
        case .streaming(let stream, let plan):
            strip = []
            var (chunks, dropped) = source?.chunks(forOutput: plan.colorType, bitDepth: plan.bitDepth, keep: settings.keep,
                                                   palette: plan.palette) ?? ([], [])
            // What belongs before the image data but was known only after it (a source's late
            // chunk) comes too late for a file whose image data is written.
            for chunk in chunks where chunk.placement != .afterImageData && !leading.contains(chunk) {
                dropped.append(DroppedMetadata(type: chunk.type, reason: "it came after the image data, too late for its "
                                               + "place before it in an output written as its rows arrive",
                                               isNotable: true))
            }
            chunks.removeAll { $0.placement != .afterImageData }
            let late = !wroteTime && source?.hasTime == true && settings.keep.contains(.time)
            try stream.finish(chunks: chunks, time: late ? settings.time : nil)
            progress?.report(1)
            return dropped + iptc
        }
    }
}
