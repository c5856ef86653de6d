package import ImageCore

/// A whole float image: float32 RGBA, straight alpha, each channel normalized
/// to 0…1, one `SIMD4<Float>` per pixel (the layout of the shaders' `vec4`
/// buffers). Only small images are held whole this way (a graph's constants,
/// e.g. a watermark); rendering works on `FloatRows` strips.
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
