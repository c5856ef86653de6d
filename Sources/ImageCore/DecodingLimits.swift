/// Bounds on what a decode may allocate, checked against the header before
/// any image-sized allocation (`--max-pixels`). Every codec honours them.
public struct DecodingLimits: Sendable, Equatable {
    /// The default `maxPixels` (SPEC §5 `--max-pixels`): a gigapixel. Memory no
    /// longer follows the area (images stream in strips), so the bound is about
    /// time: about a minute of work on this kind of machine, and a decompression
    /// bomb (a small file declaring a huge image) refused from its header.
    public static let defaultMaxPixels = 1_000_000_000

    /// Largest `width × height` accepted.
    public var maxPixels: Int
    /// Largest decoded canonical buffer accepted, in bytes.
    public var maxDecodedBytes: Int

    /// Limits with `maxDecodedBytes` defaulting to what `maxPixels` pixels
    /// need at 16 bits per channel (8 bytes per pixel).
    public init(maxPixels: Int = defaultMaxPixels, maxDecodedBytes: Int? = nil) {
        self.maxPixels = max(1, maxPixels)
        self.maxDecodedBytes = maxDecodedBytes ?? Self.saturatingProduct(self.maxPixels, 8)
    }

    /// Why an image of `width × height` at `depth` does not fit, or nil when it does.
    public func violation(width: Int, height: Int, depth: PixelBuffer.Depth) -> Violation? {
        let pixels = Self.saturatingProduct(width, height)
        if pixels > maxPixels { return .tooManyPixels(pixels) }
        let bytes = Self.saturatingProduct(pixels, 4 * depth.bytesPerSample)
        return bytes > maxDecodedBytes ? .tooManyBytes(bytes) : nil
    }

    /// What a header exceeds.
    public enum Violation: Sendable, Equatable {
        /// More pixels than `maxPixels` (the count).
        case tooManyPixels(Int)
        /// More canonical bytes than `maxDecodedBytes` (the count).
        case tooManyBytes(Int)
    }

    /// `a × b`, or `Int.max` when it overflows.
    public static func saturatingProduct(_ a: Int, _ b: Int) -> Int {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? Int.max : product
    }
}
