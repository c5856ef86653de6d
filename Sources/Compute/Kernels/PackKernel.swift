package import PNGCodec

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

    /// Runs the kernel on all cores for large images.
    package static func run(_ image: FloatImage) -> PixelBuffer {
        let count = image.pixels.count
        let scale = scale(for: image.depth)
        let depth = image.depth
        let bytes = [UInt8](unsafeUninitializedCapacity: count * 4 * depth.bytesPerSample) { output, initialized in
            image.pixels.withUnsafeBufferPointer { pixels in
                // Flat per-channel loops over plain pointers: the form LLVM vectorizes.
                // Each chunk writes only its own pixels, so sharing the pointers is safe.
                nonisolated(unsafe) let input = UnsafeRawPointer(pixels.baseAddress!)
                    .assumingMemoryBound(to: Float.self)
                nonisolated(unsafe) let destination = UnsafeMutableRawPointer(output.baseAddress!)
                ParallelLoop.forEachChunk(count) { range in
                    let channels = (4 * range.lowerBound)..<(4 * range.upperBound)
                    switch depth {
                    case .eight:
                        let samples = destination.bindMemory(to: UInt8.self, capacity: 4 * count)
                        for c in channels { samples[c] = UInt8(truncatingIfNeeded: quantize(input[c], scale)) }
                    case .sixteen:
                        let samples = destination.bindMemory(to: UInt16.self, capacity: 4 * count)
                        for c in channels { samples[c] = UInt16(truncatingIfNeeded: quantize(input[c], scale)) }
                    }
                }
            }
            initialized = count * 4 * depth.bytesPerSample
        }
        return PixelBuffer(width: image.width, height: image.height, depth: depth, bytes: bytes)
    }

    /// The formula above for one channel; the result lies in 0…scale.
    @inline(__always)
    private static func quantize(_ value: Float, _ scale: Float) -> UInt32 {
        let clamped = value.isNaN ? 0 : Swift.min(Swift.max(value, 0), 1)
        let level = (clamped * scale + 0.5).rounded(.down)
        // An integer-valued float below 2^23, plus 2^23, holds that integer in its low
        // mantissa bits: a conversion without Int(_:)'s range check, which blocks vectorizing.
        return (level + 0x1p23).bitPattern & 0x7F_FFFF
    }
}
