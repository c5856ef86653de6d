/// Premultiplied-alpha helpers shared by the resampling kernels; GPU twins in `Shaders/pass.glsl`.
enum Alpha {
    /// Below this alpha a filtered pixel is fully transparent: its color would be a ratio of rounding errors.
    static let transparent: Float = 1.0 / 1024.0

    /// Straight → premultiplied.
    @inline(__always)
    static func premultiply(_ c: SIMD4<Float>) -> SIMD4<Float> {
        c * SIMD4(c.w, c.w, c.w, 1)
    }

    /// Premultiplied → straight, clamped to 0…1 (no overshoot from negative lobes).
    @inline(__always)
    static func unpremultiply(_ c: SIMD4<Float>) -> SIMD4<Float> {
        let a = min(max(c.w, 0), 1)
        guard a >= transparent else { return .zero }
        // Masked replaces rather than `clamped`, whose generic pointwise min/max
        // do not inline into the kernels' loops.
        let limit = SIMD4<Float>(repeating: a)
        let zero = SIMD4<Float>(repeating: 0)
        var color = c.replacing(with: zero, where: c .< zero)
        color.replace(with: limit, where: color .> limit)
        color /= limit
        color.w = a
        return color
    }
}
