/// Premultiplied-alpha helpers shared by the resampling kernels; GPU twins in `Shaders/pass.glsl`.
enum Alpha {
    /// Below this alpha a filtered pixel is fully transparent: what rounds to 0 at 16 bits (half of 1/65535).
    /// Rejected: 1/1024 (until 2026-11-28), which took a filtered pixel's color for a ratio of rounding errors
    /// below it. float32 keeps 24 bits, and the color is clamped to 0…alpha before it is divided, so it
    /// is bounded there too; what 1/1024 did was erase 16-bit alphas 1–63 (faint shadows, glows) wherever
    /// a resize, blur or sharpen ran, and keep them where none did.
    static let transparent: Float = 0.5 / 65535.0

    /// Straight → premultiplied.
    @inline(__always)
    static func premultiply(_ c: SIMD4<Float>) -> SIMD4<Float> {
        c * SIMD4(c.w, c.w, c.w, 1)
    }

    /// Premultiplied → straight: the colour divided by the alpha as filtered, then both clamped to 0…1
    /// (no overshoot from negative lobes). Transparent below ``transparent`` (NaN too).
    ///
    /// Rejected (until 2026-11-28): clamping the alpha to 1 first. Lanczos' lobes take an opaque edge
    /// beside transparency past 1 (1.12 at 40 gray columns then 41 clear ones, upscaled 200 wide), and
    /// its colour with it: divided by the clamped 1, an opaque gray 128 came out 143 (vips and ImageMagick
    /// keep 128). A colour uniform across an alpha edge now stays that colour.
    @inline(__always)
    static func unpremultiply(_ c: SIMD4<Float>) -> SIMD4<Float> {
        let a = c.w
        guard a >= transparent else { return .zero }
        // Masked replaces rather than `clamped`, whose generic pointwise min/max
        // do not inline into the kernels' loops.
        let zero = SIMD4<Float>(repeating: 0), one = SIMD4<Float>(repeating: 1)
        var color = c / SIMD4(repeating: a)
        color.replace(with: zero, where: color .< zero)
        color.replace(with: one, where: color .> one)
        color.w = min(a, 1)
        return color
    }
}
