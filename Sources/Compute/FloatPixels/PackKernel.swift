package import ImageCore
internal import CKernels

/// pack — the render stage's exit: float32 RGBA → canonical integer RGBA.
///
///     out.c = isNaN(f) ? 0 : floor(clamp(f, 0, 1) * scale + 0.5),   scale = Float(maxValue)
///
/// Round half up with clamping. GPU twin: `Shaders/pack.comp` (where
/// `precise` keeps the multiply and add separately rounded, as here), so both
/// backends give identical samples from identical floats.
package enum PackKernel {
    /// The factor of the formula above for `depth` (also the shader's push constant).
    package static func scale(for depth: PixelBuffer.Depth) -> Float {
        Float(depth.maxValue)
    }

    /// Packs `count` pixels at `pixels` into canonical samples at `output`, on all cores when
    /// large (`kiln_pack8`, `kiln_pack16`: the same formula, built for AVX2 and plain x86-64;
    /// the Swift loops they replace were built for the baseline CPU only).
    package static func run(_ pixels: UnsafePointer<SIMD4<Float>>, count: Int, depth: PixelBuffer.Depth,
                            into output: UnsafeMutableRawPointer) {
        let scale = scale(for: depth)
        // Each chunk writes only its own pixels, so sharing the pointers is safe.
        nonisolated(unsafe) let input = pixels
        nonisolated(unsafe) let destination = output
        let bytes = depth.bytesPerSample
        ParallelLoop.forEachChunk(count) { range in
            let from = input + range.lowerBound, to = destination + 4 * bytes * range.lowerBound
            switch depth {
            case .eight: kiln_pack8(from, 4 * range.count, scale, to)
            case .sixteen: kiln_pack16(from, 4 * range.count, scale, to)
            }
        }
    }
}
