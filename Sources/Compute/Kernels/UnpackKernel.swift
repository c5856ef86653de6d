package import PNGCodec

/// unpack — the render stage's entry: canonical integer RGBA → float32 RGBA.
///
///     out.c = Float(in.c) * scale,   scale = Float(1) / Float(maxValue)  (255 or 65535)
///
/// GPU twin: `Shaders/unpack.comp`. A single correctly rounded multiplication
/// by the same host-computed `scale`, so both backends give bit-identical
/// floats, and `PackKernel` recovers every sample exactly.
package enum UnpackKernel {
    /// The factor of the formula above for `depth` (also the shader's push constant).
    package static func scale(for depth: PixelBuffer.Depth) -> Float {
        Float(1) / Float(depth.maxValue)
    }

    /// Runs the kernel on all cores for large images.
    package static func run(_ image: PixelBuffer) -> FloatImage {
        let count = image.pixelCount
        let scale = scale(for: image.depth)
        let pixels = [SIMD4<Float>](unsafeUninitializedCapacity: count) { output, initialized in
            HugePages.advise(output)
            image.bytes.withUnsafeBytes { bytes in
                // Flat per-channel loops over plain pointers: the form LLVM vectorizes.
                // Each chunk writes only its own pixels, so sharing the pointers is safe.
                nonisolated(unsafe) let destination = UnsafeMutableRawPointer(output.baseAddress!)
                    .bindMemory(to: Float.self, capacity: 4 * count)
                nonisolated(unsafe) let input = bytes.baseAddress!
                ParallelLoop.forEachChunk(count) { range in
                    let channels = (4 * range.lowerBound)..<(4 * range.upperBound)
                    switch image.depth {
                    case .eight:
                        let samples = input.assumingMemoryBound(to: UInt8.self)
                        for c in channels { destination[c] = Float(samples[c]) * scale }
                    case .sixteen:
                        let samples = input.assumingMemoryBound(to: UInt16.self)
                        for c in channels { destination[c] = Float(samples[c]) * scale }
                    }
                }
            }
            initialized = count
        }
        return FloatImage(width: image.width, height: image.height, depth: image.depth, pixels: pixels)
    }
}
