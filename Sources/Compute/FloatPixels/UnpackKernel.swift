package import ImageCore

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

    /// Unpacks `count` pixels of canonical samples at `samples` into `output`, on all cores when large.
    package static func run(_ samples: UnsafeRawPointer, depth: PixelBuffer.Depth, count: Int,
                            into output: UnsafeMutablePointer<SIMD4<Float>>) {
        let scale = scale(for: depth)
        // A pixel is four Floats (SIMD4's layout), so its memory may be viewed as Floats for the
        // duration of this call. 16-bit samples are read through a scoped UInt16 view where
        // 2-byte aligned (typed loads vectorize, unaligned ones measured 10–35 % slower), with
        // unaligned loads otherwise.
        output.withMemoryRebound(to: Float.self, capacity: 4 * count) { floats in
            // Flat per-channel loops over plain pointers: the form LLVM vectorizes.
            // Each chunk writes only its own pixels, so sharing the pointers is safe.
            nonisolated(unsafe) let destination = floats
            nonisolated(unsafe) let input = samples
            ParallelLoop.forEachChunk(count) { range in
                let channels = (4 * range.lowerBound)..<(4 * range.upperBound)
                switch depth {
                case .eight:
                    for c in channels { destination[c] = Float(input.load(fromByteOffset: c, as: UInt8.self)) * scale }
                case .sixteen where Int(bitPattern: input) % MemoryLayout<UInt16>.alignment == 0:
                    input.withMemoryRebound(to: UInt16.self, capacity: 4 * count) { samples in
                        for c in channels { destination[c] = Float(samples[c]) * scale }
                    }
                case .sixteen:
                    for c in channels {
                        destination[c] = Float(input.loadUnaligned(fromByteOffset: 2 * c, as: UInt16.self)) * scale
                    }
                }
            }
        }
    }

    /// Unpacks a whole image (e.g. a watermark, held whole as a constant of the graph).
    package static func run(_ image: PixelBuffer) -> FloatImage {
        let count = image.pixelCount
        let pixels = [SIMD4<Float>](unsafeUninitializedCapacity: count) { output, initialized in
            image.bytes.withUnsafeBytes { run($0.baseAddress!, depth: image.depth, count: count, into: output.baseAddress!) }
            initialized = count
        }
        return FloatImage(width: image.width, height: image.height, depth: image.depth, pixels: pixels)
    }
}
