public import ImageCore
import CPNG

/// Encodes a `PixelBuffer` as PNG, losslessly (SPEC §6), through the same
/// encoder as ``PNGWriter`` (``PNGStream``).
///
/// Levels 1-9 take the fast path: rows filtered with a per-row choice and,
/// when the image has at least 256 KiB of rows, deflated by ISA-L at level 1
/// in independent segments on every core (joined into one zlib stream, each
/// primed with the 32 KiB before it) or, at 2-9, whole by libdeflate while
/// it has at most 64 MiB of canonical rows (above, in segments: ISA-L at 2,
/// zlib at 3-9); a smaller image whole, on one core, by libdeflate or, where
/// that is smaller, by Huffman coding alone. Level 0 (stored) goes through libpng.
///
/// The output keeps the buffer's precision in the smallest exact form of its
/// pixels (SPEC §4.1): 8 bits when every 16-bit sample is 257·k, gray when
/// every pixel has r == g == b (at 1, 2 or 4 bits when every gray value is
/// exact there), an alpha channel only when some pixel is not fully opaque;
/// and when it has at most 256 colours, a palette (PLTE, tRNS for the
/// non-opaque entries) at 1, 2, 4 or 8 bits per index, written unfiltered,
/// if that file is the smaller (both are made, in memory, and the smaller is
/// kept; the palette on a tie). Decoding the output with `PNGDecoder` gives
/// back exactly the input's samples (8-bit ones for a 16-bit input stored at
/// 8, which expand back by ×257). Thread-safe: no shared state.
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
        /// For levels 1-9, ISA-L in segments, libdeflate whole (up to 64 MiB of
        /// rows) or zlib in segments (larger); for images under 256 KiB of rows,
        /// libdeflate or Huffman coding alone, whole.
        case automatic
        /// libpng and zlib at the requested level (the reference, for benchmarks).
        case zlib
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
        let dropped = try encode(image, options: options, metadata: metadata, keep: keep, time: time,
                                 progress: progress, to: output)
        return Encoded(bytes: output.bytes, dropped: dropped)
    }

    /// Encodes the held `image` into `output` in its smallest exact form
    /// (``EncodingPlan/exactForms(of:options:)``); returns the chunks left out.
    /// A reduction never costs metadata: gray is chosen only when it keeps every
    /// chunk colour keeps (an RGB iCCP tags only colour: before, a tagged RGB
    /// image whose pixels were all neutral was written gray, its profile
    /// dropped and its pixels unconverted, so it looked otherwise: 73 levels
    /// off under a linear profile); a palette form is made only when it keeps
    /// every chunk the direct form keeps: then both are made in memory and the
    /// smaller is written, the palette on a tie.
    static func encode(_ image: PixelBuffer, options: Options, metadata: PNGMetadata?, keep: MetadataSelection,
                       time: Int64, progress: EncodeProgress?, to output: any EncodedOutput) throws -> [DroppedMetadata] {
        func kept(_ plan: EncodingPlan) -> Int {
            metadata?.chunks(forOutput: plan.colorType, bitDepth: plan.bitDepth, keep: keep, palette: plan.palette).chunks.count ?? 0
        }
        let background = metadata?.backgroundRGB8(keep: keep)
        var (direct, palette) = try EncodingPlan.exactForms(of: image, options: options, background: background)
        if direct.colorType == .gray || direct.colorType == .grayAlpha, let metadata {
            // Analysed again only where colour would keep a chunk gray does not (an RGB profile): not for every gray
            // image. A chunk gray keeps instead (a gray source's bKGD or sBIT) does not make up for it: counted, one
            // for one, gray won, and `--profile srgb` wrote PngSuite's bgbn4a08 gray and untagged.
            let colourType: PNGColorType = direct.colorType == .gray ? .rgb : .rgba
            let colourKeeps = metadata.chunks(forOutput: colourType, bitDepth: max(8, direct.bitDepth), keep: keep).chunks
            let grayKeeps = Set(metadata.chunks(forOutput: direct.colorType, bitDepth: direct.bitDepth, keep: keep).chunks.map(\.type))
            if colourKeeps.contains(where: { !grayKeeps.contains($0.type) }) {
                (direct, palette) = try EncodingPlan.exactForms(of: image, options: options, gray: false, background: background)
            }
        }
        guard let palette, kept(palette) >= kept(direct) else {
            return try encode(image, plan: direct, metadata: metadata, keep: keep, time: time, progress: progress,
                              to: output)
        }
        let indexed = MemoryOutput(), samples = MemoryOutput()
        // Each form reports its share of the encode, by its stored bytes (the palette's a pixel a byte or less, the
        // samples' up to four): the palette's said nothing, and a noisy gray image at level 9 (its 256 grays a palette
        // too) stood still for seconds, long enough for a short --stall-timeout to stop it.
        let indexedBytes = Double(palette.storedRowBytes(width: image.width))
        let share = indexedBytes / (indexedBytes + Double(direct.storedRowBytes(width: image.width)))
        let halves = progress.map { whole in
            (EncodeProgress { whole.report($0 * share) }, EncodeProgress { whole.report(share + $0 * (1 - share)) })
        }
        let indexedDropped = try encode(image, plan: palette, metadata: metadata, keep: keep, time: time,
                                        progress: halves?.0, to: indexed)
        let samplesDropped = try encode(image, plan: direct, metadata: metadata, keep: keep, time: time,
                                        progress: halves?.1, to: samples)
        let (bytes, dropped) = indexed.bytes.count <= samples.bytes.count
            ? (indexed.bytes, indexedDropped) : (samples.bytes, samplesDropped)
        try bytes.withUnsafeBytes { try output.write($0) }
        return dropped
    }

    /// Encodes the held `image` as `plan` says into `output`; returns the chunks left out.
    static func encode(_ image: PixelBuffer, plan: EncodingPlan, metadata: PNGMetadata?, keep: MetadataSelection,
                       time: Int64, progress: EncodeProgress?, to output: any EncodedOutput) throws -> [DroppedMetadata] {
        let (chunks, dropped) = metadata?.chunks(forOutput: plan.colorType, bitDepth: plan.bitDepth, keep: keep,
                                                 palette: plan.palette) ?? ([], [])
        let stamp = metadata?.hasTime == true && keep.contains(.time) ? time : nil
        let stream = PNGStream(width: image.width, height: image.height, plan: plan, output: output)
        stream.progress = progress
        try stream.begin(chunks: chunks.filter { $0.placement != .afterImageData }, time: stamp)
        try image.bytes.withUnsafeBytes { try stream.append($0.baseAddress!, count: image.height) }
        try stream.finish(chunks: chunks.filter { $0.placement == .afterImageData }, time: nil)
        return dropped
    }
}
