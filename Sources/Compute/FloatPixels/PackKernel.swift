package import ImageCore

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

    /// Packs `count` pixels at `pixels` into canonical samples at `output`, on all cores when large.
    package static func run(_ pixels: UnsafePointer<SIMD4<Float>>, count: Int, depth: PixelBuffer.Depth,
                            into output: UnsafeMutableRawPointer) {
        let scale = scale(for: depth)
        // A pixel is four Floats (SIMD4's layout), so its memory may be viewed as Floats for the
        // duration of this call. 16-bit samples go out through a scoped UInt16 view where 2-byte
        // aligned (typed stores vectorize, unaligned ones measured 40 % slower), with unaligned
        // stores otherwise.
        pixels.withMemoryRebound(to: Float.self, capacity: 4 * count) { floats in
            // Flat per-channel loops over plain pointers: the form LLVM vectorizes.
            // Each chunk writes only its own pixels, so sharing the pointers is safe.
            nonisolated(unsafe) let input = floats
            nonisolated(unsafe) let destination = output
            ParallelLoop.forEachChunk(count) { range in
                let channels = (4 * range.lowerBound)..<(4 * range.upperBound)
                switch depth {
                case .eight:
                    // The output is byte storage (bytes may alias any memory): typed byte stores vectorize.
                    destination.withMemoryRebound(to: UInt8.self, capacity: 4 * count) { bytes in
                        for c in channels { bytes[c] = UInt8(truncatingIfNeeded: quantize(input[c], scale)) }
                    }
                case .sixteen where Int(bitPattern: destination) % MemoryLayout<UInt16>.alignment == 0:
                    destination.withMemoryRebound(to: UInt16.self, capacity: 4 * count) { samples in
                        for c in channels { samples[c] = UInt16(truncatingIfNeeded: quantize(input[c], scale)) }
                    }
                case .sixteen:
                    for c in channels {
                        destination.storeBytes(of: UInt16(truncatingIfNeeded: quantize(input[c], scale)),
                                               toByteOffset: 2 * c, as: UInt16.self)
                    }
                }
            }
        }
    }

    /// The formula above for one channel; the result lies in 0…scale.
    @inline(__always)
    private static func quantize(_ value: Float, _ scale: Float) -> UInt32 {
        let clamped = value.isNaN ? 0 : Swift.min(Swift.max(value, 0), 1)
        let x = clamped * scale + 0.5
        // x lies in 0.5…2^16 + 0.5: x + 2^23 is x rounded to an integer (to nearest,
        // ties to even), plus 2^23, held in the low mantissa bits; one less where
        // that rounded up makes it floor(x). Exactly `floor`, without a libm call
        // (SSE2 has no floor instruction) or Int(_:)'s range check, so it vectorizes.
        let rounded = x + 0x1p23
        let level = rounded - 0x1p23 > x ? rounded - 1 : rounded
        return level.bitPattern & 0x7F_FFFF
    }
}
