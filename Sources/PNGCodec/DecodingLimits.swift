extension PNGDecoder {
    /// Bounds on what a decode may allocate, checked against IHDR before any
    /// image-sized allocation.
    public struct Limits: Sendable, Equatable {
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
            self.maxDecodedBytes = maxDecodedBytes ?? Limits.saturatingProduct(self.maxPixels, 8)
        }

        /// The per-side bound handed to libpng's own user limits: no side can
        /// exceed the pixel budget (or PNG's 2³¹ − 1).
        var maxDimension: UInt32 { UInt32(min(maxPixels, Int(Int32.max))) }

        /// Throws unless an image of this header fits.
        func check(_ header: PNGHeader) throws {
            let pixels = Limits.saturatingProduct(header.width, header.height)
            if pixels > maxPixels {
                throw PNGError.tooManyPixels(width: header.width, height: header.height, limit: maxPixels)
            }
            let bytes = Limits.saturatingProduct(pixels, 4 * header.decodedDepth.bytesPerSample)
            if bytes > maxDecodedBytes {
                throw PNGError.tooManyBytes(width: header.width, height: header.height, bytes: bytes,
                                            limit: maxDecodedBytes)
            }
        }

        private static func saturatingProduct(_ a: Int, _ b: Int) -> Int {
            let (product, overflow) = a.multipliedReportingOverflow(by: b)
            return overflow ? Int.max : product
        }
    }
}
