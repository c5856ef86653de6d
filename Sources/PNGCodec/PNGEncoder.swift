import CPNG

/// Encodes a `PixelBuffer` as PNG, losslessly (SPEC §6).
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

        /// Options with the default level 6 and automatic filtering.
        public init(level: Int = 6, filter: RowFilter = .automatic) {
            self.level = level
            self.filter = filter
        }
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
        public var dropped: [DroppedChunk]
    }

    /// Encodes `image` with the source's ancillary information: the chunks of
    /// `metadata` of the kinds in `keep` that still hold for the output (see
    /// ``PNGMetadata/chunks(forOutput:bitDepth:keep:)``), each at its place, and
    /// — when the source had a tIME and `keep` has `.time` — a tIME saying
    /// `time` (seconds since 1970, UTC).
    /// - Throws: as ``encode(_:options:)``.
    public static func encode(_ image: PixelBuffer, options: Options = Options(), metadata: PNGMetadata?,
                              keep: MetadataSelection = .all, time: Int64 = 0) throws -> Encoded {
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
        withRawChunks(0, &raw) { raw in
            image.bytes.withUnsafeBytes { pixels in
                _ = cpng_encode(pixels.baseAddress, UInt32(image.width), UInt32(image.height), Int32(plan.bitDepth),
                                Int32(plan.colorType.rawValue), Int32(plan.level),
                                plan.adaptiveFilters ? CPNG_FILTERS_ADAPTIVE : CPNG_FILTERS_NONE,
                                raw, raw.count, stamp, &output, &status)
            }
        }
        guard status.code == CPNG_OK else { throw PNGError(status: status) }
        defer { cpng_buffer_free(&output) }
        return Encoded(bytes: Array(UnsafeBufferPointer(start: output.data, count: output.size)), dropped: dropped)
    }
}
