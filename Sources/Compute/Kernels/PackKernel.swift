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
        let scale = SIMD4<Float>(repeating: scale(for: image.depth))
        let depth = image.depth
        let bytes = [UInt8](unsafeUninitializedCapacity: count * 4 * depth.bytesPerSample) { output, initialized in
            image.pixels.withUnsafeBufferPointer { pixels in
                // Each chunk writes only its own pixels: sharing the pointers across threads is safe.
                nonisolated(unsafe) let input = pixels
                nonisolated(unsafe) let destination = UnsafeMutableRawBufferPointer(output)
                ParallelLoop.forEachChunk(count) { range in
                    switch depth {
                    case .eight:
                        for i in range {
                            destination.storeBytes(of: SIMD4<UInt8>(quantize(input[i], scale)),
                                                   toByteOffset: 4 * i, as: SIMD4<UInt8>.self)
                        }
                    case .sixteen:
                        for i in range {
                            destination.storeBytes(of: SIMD4<UInt16>(quantize(input[i], scale)),
                                                   toByteOffset: 8 * i, as: SIMD4<UInt16>.self)
                        }
                    }
                }
            }
            initialized = count * 4 * depth.bytesPerSample
        }
        return PixelBuffer(width: image.width, height: image.height, depth: depth, bytes: bytes)
    }

    /// The formula above, per channel; the result lies in 0…scale.
    @inline(__always)
    private static func quantize(_ value: SIMD4<Float>, _ scale: SIMD4<Float>) -> SIMD4<Float> {
        var clamped = value.clamped(lowerBound: .zero, upperBound: .one)
        clamped.replace(with: 0, where: value .!= value)
        return (clamped * scale + 0.5).rounded(.down)
    }
}
