/// The canonical in-memory image of SPEC §4.1: interleaved RGBA, straight
/// (not premultiplied) alpha, 8 or 16 bits per channel.
///
/// 16-bit samples are stored as host-endian `UInt16` values inside `bytes`
/// (two bytes per sample), so compute kernels can read them without swapping.
public struct PixelBuffer: Sendable, Equatable {
    /// Bits per channel of a canonical buffer.
    public enum Depth: Int, Sendable, Codable {
        case eight = 8
        case sixteen = 16

        /// Bytes per channel sample.
        public var bytesPerSample: Int { self == .eight ? 1 : 2 }
        /// The largest sample value (full intensity, fully opaque).
        public var maxValue: Int { self == .eight ? 255 : 65535 }
    }

    /// Width in pixels (≥ 1).
    public let width: Int
    /// Height in pixels (≥ 1).
    public let height: Int
    /// Bits per channel.
    public let depth: Depth
    /// `width × height × 4` samples, row-major, RGBA.
    public var bytes: [UInt8]

    /// Bytes per pixel (4 channels).
    public var bytesPerPixel: Int { 4 * depth.bytesPerSample }
    /// Bytes per row.
    public var rowBytes: Int { width * bytesPerPixel }
    /// Number of pixels.
    public var pixelCount: Int { width * height }

    /// Wraps existing canonical samples; `bytes.count` must be `width × height × 4 × bytesPerSample`.
    public init(width: Int, height: Int, depth: Depth, bytes: [UInt8]) {
        precondition(width > 0 && height > 0, "empty image")
        precondition(bytes.count == width * height * 4 * depth.bytesPerSample, "sample count does not match size")
        self.width = width
        self.height = height
        self.depth = depth
        self.bytes = bytes
    }

    /// A buffer of the given size with every sample zero (transparent black).
    public init(width: Int, height: Int, depth: Depth) {
        self.init(width: width, height: height, depth: depth,
                  bytes: [UInt8](repeating: 0, count: width * height * 4 * depth.bytesPerSample))
    }
}
