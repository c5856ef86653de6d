import CShaders
import Compute
import Foundation

/// blur — one axis of a separable Gaussian: weights `exp(−k²/2σ²)` for
/// `|k| ≤ radius = ⌈3σ⌉`, normalized; pixels past the edges repeat the edge
/// pixel. Premultiplied input/output are flags, as for `ResampleKernel`.
/// GPU twins: `Shaders/blur_x.comp`, `Shaders/blur_y.comp` (shared-memory windows).
enum BlurKernel {
    static let horizontal = Shader(name: "blur_x", spirv: kiln_spv_blur_x, size: kiln_spv_blur_x_size, groupSize: (256, 1))
    static let vertical = Shader(name: "blur_y", spirv: kiln_spv_blur_y, size: kiln_spv_blur_y_size, groupSize: (1, 256))

    /// The window's half-width for `sigma`.
    static func radius(sigma: Double) -> Int {
        max(1, Int((3 * sigma).rounded(.up)))
    }

    /// The normalized weights of offsets −radius…radius.
    static func weights(sigma: Double) -> [Float] {
        let radius = radius(sigma: sigma)
        let raw = (-radius...radius).map { Foundation.exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = raw.reduce(0, +)
        return raw.map { Float($0 / total) }
    }

    /// Blurs `input` (`width × height`) along one axis.
    static func pass(_ input: ImageRef, vertical: Bool, sigma: Double, width: Int, height: Int,
                     premultiplyInput: Bool, unpremultiplyOutput: Bool) -> RenderPass {
        let radius = radius(sigma: sigma)
        let weights = weights(sigma: sigma)
        let footprint: @Sendable (PixelRect) -> PixelRect = { vertical ? $0.expanded(dx: 0, dy: radius) : $0.expanded(dx: radius, dy: 0) }
        let ints: [Int32] = [0, Int32(radius), premultiplyInput ? 1 : 0, unpremultiplyOutput ? 1 : 0]
        return RenderPass(shader: vertical ? Self.vertical : horizontal, width: width, height: height,
                          inputs: [PassInput(input, footprint: footprint)], ints: ints, floats: [Float(sigma)]) { inputs in
            run(inputs[0], vertical: vertical, weights: weights, premultiplyInput: premultiplyInput,
                unpremultiplyOutput: unpremultiplyOutput)
        }
    }

    /// The CPU kernel.
    private static func run(_ source: FloatImage, vertical: Bool, weights: [Float], premultiplyInput: Bool,
                            unpremultiplyOutput: Bool) -> FloatImage {
        let width = source.width, height = source.height
        return source.pixels.withUnsafeBufferPointer { pixels -> FloatImage in
            nonisolated(unsafe) let pixels = pixels
            return FloatImage.filled(width: width, height: height, depth: source.depth,
                                     rowCost: width * weights.count) { rows, output in
                weights.withUnsafeBufferPointer { weights in
                    let window = Window(weights: weights, premultiply: premultiplyInput, unpremultiply: unpremultiplyOutput)
                    if vertical {
                        window.blurColumns(pixels, width: width, height: height, rows: rows, output: output)
                    } else {
                        window.blurRows(pixels, width: width, rows: rows, output: output)
                    }
                }
            }
        }
    }

    /// The weights and alpha handling of one pass.
    private struct Window {
        let weights: UnsafeBufferPointer<Float>
        let premultiply: Bool
        let unpremultiply: Bool

        var radius: Int { weights.count / 2 }

        @inline(__always)
        func load(_ pixel: SIMD4<Float>) -> SIMD4<Float> {
            premultiply ? Alpha.premultiply(pixel) : pixel
        }

        @inline(__always)
        func finish(_ pixel: SIMD4<Float>) -> SIMD4<Float> {
            unpremultiply ? Alpha.unpremultiply(pixel) : pixel
        }

        /// Horizontal: each output pixel sums its window of the row (padded with
        /// its edge pixels) in a register, pairing the taps at ±k, which share a weight.
        func blurRows(_ pixels: UnsafeBufferPointer<SIMD4<Float>>, width: Int, rows: Range<Int>,
                      output: UnsafeMutablePointer<SIMD4<Float>>) {
            let padded = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: width + 2 * radius)
            defer { padded.deallocate() }
            let w = weights.baseAddress!
            for y in rows {
                let line = pixels.baseAddress! + y * width
                for i in 0..<padded.count { padded[i] = load(line[min(max(i - radius, 0), width - 1)]) }
                let out = output + y * width
                for x in 0..<width {
                    let window = padded.baseAddress! + x
                    var sum = w[radius] * window[radius]
                    for k in 0..<radius { sum += w[k] * (window[k] + window[2 * radius - k]) }
                    out[x] = finish(sum)
                }
            }
        }

        /// Vertical: each output row is a weighted sum of source rows, in strips
        /// of columns so the window's rows stay in cache from one output row to the next.
        func blurColumns(_ pixels: UnsafeBufferPointer<SIMD4<Float>>, width: Int, height: Int, rows: Range<Int>,
                         output: UnsafeMutablePointer<SIMD4<Float>>) {
            let strip = 256
            let sum = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: strip)
            defer { sum.deallocate() }
            for left in stride(from: 0, to: width, by: strip) {
                let columns = min(strip, width - left)
                for y in rows {
                    func row(_ offset: Int) -> UnsafePointer<SIMD4<Float>> {
                        pixels.baseAddress! + min(max(y + offset, 0), height - 1) * width + left
                    }
                    let center = row(0), middle = weights[radius]
                    for x in 0..<columns { sum[x] = middle * load(center[x]) }
                    // The rows at ±k share a weight: one multiply for both.
                    for k in 1...radius {
                        let w = weights[radius - k], above = row(-k), below = row(k)
                        if premultiply {
                            for x in 0..<columns { sum[x] += w * (Alpha.premultiply(above[x]) + Alpha.premultiply(below[x])) }
                        } else {
                            for x in 0..<columns { sum[x] += w * (above[x] + below[x]) }
                        }
                    }
                    let out = output + y * width + left
                    for x in 0..<columns { out[x] = finish(sum[x]) }
                }
            }
        }
    }
}
