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
        let plan = try EncodingPlan(image: image, options: options)
        var output = cpng_buffer()
        var status = cpng_status()
        image.bytes.withUnsafeBytes { pixels in
            _ = cpng_encode(pixels.baseAddress, UInt32(image.width), UInt32(image.height), Int32(plan.bitDepth),
                            Int32(plan.colorType.rawValue), Int32(plan.level),
                            plan.adaptiveFilters ? CPNG_FILTERS_ADAPTIVE : CPNG_FILTERS_NONE, &output, &status)
        }
        guard status.code == CPNG_OK else { throw PNGError(status: status) }
        defer { cpng_buffer_free(&output) }
        return Array(UnsafeBufferPointer(start: output.data, count: output.size))
    }
}
