package import PNGCodec

/// The render stage's working image: float32 RGBA, straight alpha, each
/// channel normalized to 0…1, one `SIMD4<Float>` per pixel (the layout of the
/// shaders' `vec4` buffers).
package struct FloatImage: Sendable {
    /// Width in pixels.
    package let width: Int
    /// Height in pixels.
    package let height: Int
    /// The bit depth the image came from and goes back to.
    package let depth: PixelBuffer.Depth
    /// `width × height` pixels, row-major.
    package var pixels: [SIMD4<Float>]

    /// Wraps pixels; `pixels.count` must be `width × height`.
    package init(width: Int, height: Int, depth: PixelBuffer.Depth, pixels: [SIMD4<Float>]) {
        precondition(pixels.count == width * height, "pixel count does not match size")
        self.width = width
        self.height = height
        self.depth = depth
        self.pixels = pixels
    }
}

extension FloatImage {
    /// A `width × height` image whose rows `body` fills, bands of rows in
    /// parallel; `body` gets the band and the image's first pixel and must
    /// initialize every pixel of its rows. `rowCost` is the work per row, in
    /// pixel-operations, for deciding how many threads to use.
    package static func filled(width: Int, height: Int, depth: PixelBuffer.Depth, rowCost: Int,
                               _ body: @Sendable (_ rows: Range<Int>, _ pixels: UnsafeMutablePointer<SIMD4<Float>>) -> Void) -> FloatImage {
        let pixels = [SIMD4<Float>](unsafeUninitializedCapacity: width * height) { buffer, initialized in
            // Each band writes only its own rows, so sharing the pointer is safe.
            nonisolated(unsafe) let base = buffer.baseAddress!
            ParallelLoop.forEachChunk(height, itemCost: rowCost) { rows in body(rows, base) }
            initialized = width * height
        }
        return FloatImage(width: width, height: height, depth: depth, pixels: pixels)
    }
}
