public import ImageCore
import Dispatch
import CPNG

/// Encodes a `PixelBuffer` as PNG, losslessly (SPEC §6).
///
/// Levels 1-6 take the fast path: rows filtered with a per-row choice and
/// deflated by ISA-L when the image has at least 256 KiB of rows, in
/// independent segments on every core (joined into one zlib stream, each
/// primed with the 32 KiB before it); a smaller image whole, on one core, by
/// libdeflate or, where that is smaller, by Huffman coding alone.
/// Level 0 and levels 7-9 (zlib's smallest output) go through libpng.
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

    /// The deflate implementation (levels 0 and 7-9 always use zlib).
    public enum Deflater: Sendable, Equatable {
        /// For levels 1-6, ISA-L in segments on every core; for images under
        /// 256 KiB of rows, libdeflate or Huffman coding alone, whole.
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
        let plan = try EncodingPlan(image: image, options: options)
        let (chunks, dropped) = metadata?.chunks(forOutput: plan.colorType, bitDepth: plan.bitDepth, keep: keep) ?? ([], [])
        let stamp = metadata?.hasTime == true && keep.contains(.time) ? time : 0
        var output = cpng_buffer()
        var status = cpng_status()
        // The C side reads the chunks' data through pointers that must stay
        // valid for the call: pin every chunk's bytes while it runs.
        func withRawChunks<R>(_ index: Int, _ raw: inout [cpng_chunk], _ body: (inout [cpng_chunk]) -> R) -> R {
            guard index < chunks.count else { return body(&raw) }
            return chunks[index].data.withUnsafeBufferPointer { data in
                var chunk = cpng_chunk()
                withUnsafeMutableBytes(of: &chunk.name) { name in
                    for (i, byte) in chunks[index].type.utf8.prefix(4).enumerated() { name[i] = byte }
                }
                chunk.data = data.baseAddress
                chunk.size = data.count
                chunk.location = Int32(chunks[index].placement.rawValue)
                raw.append(chunk)
                return withRawChunks(index + 1, &raw, body)
            }
        }
        var raw: [cpng_chunk] = []
        if let fast = plan.fast {
            let segments = try deflateSegments(image, plan: plan, fast: fast, progress: progress)
            defer { for i in segments.indices { var segment = segments[i]; cpng_segment_free(&segment) } }
            withRawChunks(0, &raw) { raw in
                _ = cpng_fast_assemble(UInt32(image.width), UInt32(image.height), Int32(plan.bitDepth),
                                       Int32(plan.colorType.rawValue), segments, segments.count, raw, raw.count,
                                       stamp, &output, &status)
            }
        } else {
            withRawChunks(0, &raw) { raw in
                encodeThroughZlib(image, plan: plan, chunks: raw, time: stamp, progress: progress,
                                  output: &output, status: &status)
            }
        }
        guard status.code == CPNG_OK else { throw PNGError(status: status) }
        defer { cpng_buffer_free(&output) }
        return Encoded(bytes: Array(UnsafeBufferPointer(start: output.data, count: output.size)), dropped: dropped)
    }
}

extension PNGEncoder {
    /// Encodes through libpng and zlib (levels 0 and 7-9), telling `progress` every few rows.
    static func encodeThroughZlib(_ image: PixelBuffer, plan: EncodingPlan, chunks: [cpng_chunk], time: Int64,
                                  progress: EncodeProgress?, output: inout cpng_buffer, status: inout cpng_status) {
        // The callback reaches `progress` through an unretained pointer, valid while `progress` lives (the call).
        var rows = cpng_row_progress()
        if let progress {
            rows.done = { context, fraction in
                Unmanaged<EncodeProgress>.fromOpaque(context!).takeUnretainedValue().report(fraction)
            }
            rows.context = Unmanaged.passUnretained(progress).toOpaque()
        }
        image.bytes.withUnsafeBytes { pixels in
            _ = cpng_encode(pixels.baseAddress, UInt32(image.width), UInt32(image.height), Int32(plan.bitDepth),
                            Int32(plan.colorType.rawValue), Int32(plan.level),
                            plan.adaptiveFilters ? CPNG_FILTERS_ADAPTIVE : CPNG_FILTERS_NONE,
                            chunks, chunks.count, time, &rows, &output, &status)
        }
        withExtendedLifetime(progress) {}
    }

    /// Filtered bytes per segment: large enough that priming costs little, small
    /// enough that an image spreads over the cores.
    static let segmentBytes = 1 << 20

    /// Deflates `image` in row segments, on several threads when it is large.
    static func deflateSegments(_ image: PixelBuffer, plan: EncodingPlan, fast: EncodingPlan.FastDeflate,
                                progress: EncodeProgress?) throws -> [cpng_segment]
    {
        let rowBytes = image.width * (plan.bitDepth / 8) * plan.colorType.channels + 1
        let rowsPerSegment = fast.deflater == CPNG_DEFLATER_WHOLE ? image.height : max(1, segmentBytes / rowBytes)
        let count = (image.height + rowsPerSegment - 1) / rowsPerSegment
        let results = UnsafeMutableBufferPointer<(cpng_segment, cpng_status)>.allocate(capacity: count)
        defer { results.deallocate() }
        image.bytes.withUnsafeBytes { pixels in
            // Each iteration writes only its own slot; the pixels are read-only.
            nonisolated(unsafe) let results = results
            nonisolated(unsafe) let pixels = pixels
            let run: @Sendable (Int) -> Void = { index in
                var segment = cpng_segment()
                var status = cpng_status()
                let first = index * rowsPerSegment, end = min(image.height, first + rowsPerSegment)
                _ = cpng_fast_segment(pixels.baseAddress, UInt32(image.width), UInt32(image.height), Int32(plan.bitDepth),
                                      Int32(plan.colorType.rawValue), UInt32(first), UInt32(end), fast.deflater,
                                      Int32(fast.level), &segment, &status)
                (results.baseAddress! + index).initialize(to: (segment, status))
                progress?.segmentDone(of: count)
            }
            if count == 1 { run(0) } else { DispatchQueue.concurrentPerform(iterations: count, execute: run) }
        }
        let segments = results.map(\.0)
        if let failure = results.first(where: { $0.1.code != CPNG_OK }) {
            for var segment in segments { cpng_segment_free(&segment) }
            throw PNGError(status: failure.1)
        }
        return segments
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
