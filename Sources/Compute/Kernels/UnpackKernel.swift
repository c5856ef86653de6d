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
        let scale = SIMD4<Float>(repeating: scale(for: image.depth))
        let pixels = [SIMD4<Float>](unsafeUninitializedCapacity: count) { output, initialized in
            image.bytes.withUnsafeBytes { bytes in
                // Each chunk writes only its own pixels: sharing the pointers across threads is safe.
                nonisolated(unsafe) let input = bytes
                nonisolated(unsafe) let destination = output
                ParallelLoop.forEachChunk(count) { range in
                    switch image.depth {
                    case .eight:
                        for i in range {
                            let samples = input.loadUnaligned(fromByteOffset: 4 * i, as: SIMD4<UInt8>.self)
                            destination.initializeElement(at: i, to: SIMD4<Float>(samples) * scale)
                        }
                    case .sixteen:
                        for i in range {
                            let samples = input.loadUnaligned(fromByteOffset: 8 * i, as: SIMD4<UInt16>.self)
                            destination.initializeElement(at: i, to: SIMD4<Float>(samples) * scale)
                        }
                    }
                }
            }
            initialized = count
        }
        return FloatImage(width: image.width, height: image.height, depth: image.depth, pixels: pixels)
    }
}
