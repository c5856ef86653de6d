public import ImageCore
import CPNG

/// Encodes a `PixelBuffer` as PNG, losslessly (SPEC §6), through the same
/// encoder as ``PNGWriter`` (``PNGStream``).
///
/// Levels 1-9 take the fast path: rows filtered with a per-row choice and,
/// when the image has at least 256 KiB of rows, deflated in independent
/// segments on every core (joined into one zlib stream, each primed with the
/// 32 KiB before it) by ISA-L (levels 1-2) or zlib (3-9); a smaller image
/// whole, on one core, by libdeflate or, where that is smaller, by Huffman
/// coding alone. Level 0 (stored) goes through libpng.
///
/// The output keeps the buffer's bit depth and picks the smallest exact color
/// type: gray when every pixel has r == g == b, an alpha channel only when
/// some pixel is not fully opaque. Decoding the output with `PNGDecoder`
/// gives back exactly the input buffer. Thread-safe: no shared state.
public enum PNGEncoder {
    /// How rows are filtered before deflate.
    public enum RowFilter: Sendable, Equatable {
        /// No filtering at level 0 (speed), adaptive otherwise.
        case automatic
        /// Every row unfiltered.
        case none
        /// libpng's per-row heuristic choice among all five PNG filters.
        case adaptive
    }

    /// Encoding settings.
    public struct Options: Sendable, Equatable {
        /// zlib compression level, 0 (stored) ... 9 (smallest).
        public var level: Int
        /// Row filter strategy.
        public var filter: RowFilter
        /// Which deflater compresses levels 1-6.
        public var deflater: Deflater

        /// Options with the default level 6, automatic filtering and the fast deflater.
        public init(level: Int = 6, filter: RowFilter = .automatic, deflater: Deflater = .automatic) {
            self.level = level
            self.filter = filter
            self.deflater = deflater
        }
    }

    /// The deflate implementation (level 0 always uses libpng and zlib).
    public enum Deflater: Sendable, Equatable {
        /// For levels 1-9, ISA-L or zlib in segments on every core; for images
        /// under 256 KiB of rows, libdeflate or Huffman coding alone, whole.
        case automatic
        /// libpng and zlib at the requested level (the reference, for benchmarks).
        case zlib
    }

    /// The PNG color type `encode` will write for `image` (bit depth = the buffer's).
    public static func outputColorType(for image: PixelBuffer) -> PNGColorType {
        EncodingPlan.losslessColorType(of: image)
    }

    /// Encodes `image` as a complete PNG stream.
    /// - Throws: `PNGError.invalidArgument` for a level outside 0...9; other
    ///   `PNGError`s only if memory runs out.
    public static func encode(_ image: PixelBuffer, options: Options = Options()) throws -> [UInt8] {
        try encode(image, options: options, metadata: nil).bytes
    }

    /// An encoded image and the source's ancillary chunks it left out.
    public struct Encoded: Sendable {
        /// The complete PNG stream.
        public var bytes: [UInt8]
        /// Chunks of the metadata that no longer hold for the output, with the reason.
        public var dropped: [DroppedMetadata]
    }

    /// Encodes `image` with the source's ancillary information: the chunks of
    /// `metadata` of the kinds in `keep` that still hold for the output (see
    /// ``PNGMetadata/chunks(forOutput:bitDepth:keep:)``), each at its place, and
    /// — when the source had a tIME and `keep` has `.time` — a tIME saying
    /// `time` (seconds since 1970, UTC). `progress` is told the fraction of
    /// the rows compressed (0…1, never decreasing, from any thread) as the
    /// encode goes: per segment on the fast path, every 16 rows through zlib.
    /// - Throws: as ``encode(_:options:)``.
    public static func encode(_ image: PixelBuffer, options: Options = Options(), metadata: PNGMetadata?,
                              keep: MetadataSelection = .all, time: Int64 = 0,
                              progress: EncodeProgress? = nil) throws -> Encoded {
        let output = MemoryOutput()
        let dropped = try encode(image, plan: EncodingPlan(image: image, options: options), metadata: metadata,
                                 keep: keep, time: time, progress: progress, to: output)
        return Encoded(bytes: output.bytes, dropped: dropped)
    }

    /// Encodes the held `image` as `plan` says into `output`; returns the chunks left out.
    static func encode(_ image: PixelBuffer, plan: EncodingPlan, metadata: PNGMetadata?, keep: MetadataSelection,
                       time: Int64, progress: EncodeProgress?, to output: any EncodedOutput) throws -> [DroppedMetadata] {
        let (chunks, dropped) = metadata?.chunks(forOutput: plan.colorType, bitDepth: plan.bitDepth, keep: keep) ?? ([], [])
        let stamp = metadata?.hasTime == true && keep.contains(.time) ? time : 0
        let stream = PNGStream(width: image.width, height: image.height, plan: plan, output: output)
        stream.progress = progress
        try stream.begin(chunks: chunks.filter { $0.placement != .afterImageData }, time: stamp)
        try image.bytes.withUnsafeBytes { try stream.append($0.baseAddress!, count: image.height) }
        try stream.finish(chunks: chunks.filter { $0.placement == .afterImageData }, time: 0)
        return dropped
    }
}

extension PNGColorType {
    /// Samples per pixel in the file.
    var channels: Int {
        switch self {
        case .gray, .palette: 1
        case .grayAlpha: 2
        case .rgb: 3
        case .rgba: 4
        }
    }
}
