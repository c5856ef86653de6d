package import ImageCore
internal import CKernels
import Synchronization

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

    /// Unpacks `count` pixels of canonical samples at `samples` into `output`, on all cores when
    /// large (`kiln_unpack8`, `kiln_unpack16`: built for AVX2 and plain x86-64). Returns whether
    /// every pixel is opaque (alpha at its maximum, so exactly 1 in float), seen on the way.
    @discardableResult
    package static func run(_ samples: UnsafeRawPointer, depth: PixelBuffer.Depth, count: Int,
                            into output: UnsafeMutablePointer<SIMD4<Float>>) -> Bool {
        let scale = scale(for: depth)
        // Each chunk writes only its own pixels, so sharing the pointers is safe.
        nonisolated(unsafe) let destination = output
        nonisolated(unsafe) let input = samples
        let bytes = depth.bytesPerSample
        let translucent = Atomic<Bool>(false)
        ParallelLoop.forEachChunk(count) { range in
            let from = input + 4 * bytes * range.lowerBound, to = destination + range.lowerBound
            let opaque = switch depth {
            case .eight: kiln_unpack8(from, 4 * range.count, scale, to)
            case .sixteen: kiln_unpack16(from, 4 * range.count, scale, to)
            }
            if opaque == 0 { translucent.store(true, ordering: .relaxed) }
        }
        return !translucent.load(ordering: .relaxed)
    }

    /// Unpacks a whole image (e.g. a watermark, held whole as a constant of the graph).
    package static func run(_ image: PixelBuffer) -> FloatImage {
        let count = image.pixelCount
        let pixels = [SIMD4<Float>](unsafeUninitializedCapacity: count) { output, initialized in
            _ = image.bytes.withUnsafeBytes { run($0.baseAddress!, depth: image.depth, count: count, into: output.baseAddress!) }
            initialized = count
        }
        return FloatImage(width: image.width, height: image.height, depth: image.depth, pixels: pixels)
    }
}
