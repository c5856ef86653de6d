internal import Compute
import Foundation

/// resample — one axis of a separable resize, with ImageMagick's and libvips'
/// pixel-center alignment (see `Taps`). Premultiplied input/output are flags,
/// so a resize premultiplies on its first pass and unpremultiplies (clamped)
/// on its last. GPU twin: `Shaders/resample.comp`.
enum ResampleKernel {
    static let kernel = KernelID("resample")

    /// The source pixels and weights of every output index along one axis.
    ///
    /// Output pixel i is centered on source coordinate `(i + ½)·scale` with
    /// `scale = n / m`; it reads the pixels j whose centers `j + ½` lie within
    /// `support` of it, weighted `filter((j + ½ − center) / filterScale)` and
    /// normalized (taps past the edges are left out, as ImageMagick does).
    /// Downscaling widens the filter: `filterScale = max(scale, 1)`. The
    /// center and the tap range are computed in float32 exactly as the shader
    /// does, so both backends pick the same taps; the weights in float64.
    struct Taps: Sendable {
        let first: [Int]
        let count: [Int]
        let offset: [Int]
        let weights: [Float]

        /// Push constants of the shader: scale, support, filter scale.
        let floats: [Float]

        init(from n: Int, to m: Int, filter: Resize.Filter) {
            let scale = Double(n) / Double(m)
            let filterScale = max(scale, 1)
            let support = filter.support * filterScale
            floats = [Float(scale), Float(support), Float(filterScale)]
            var first = [Int](), count = [Int](), offset = [Int](), weights = [Float]()
            for i in 0..<m {
                let center = (Float(i) + 0.5) * floats[0]
                offset.append(weights.count)
                if filter == .nearest {
                    first.append(min(Int(center), n - 1))
                    count.append(1)
                    weights.append(1)
                    continue
                }
                let start = max(Int(center - floats[1] + 0.5), 0)
                let stop = min(Int(center + floats[1] + 0.5), n)
                let raw = (start..<stop).map { filter.weight((Double($0) + 0.5 - Double(center)) / filterScale) }
                let total = raw.reduce(0, +)
                first.append(start)
                count.append(stop - start)
                weights += raw.map { Float($0 / total) }
            }
            self.first = first
            self.count = count
            self.offset = offset
            self.weights = weights
        }

        /// The source indices that outputs `range` read.
        func span(_ range: Range<Int>) -> Range<Int> {
            let low = range.map { first[$0] }.min()!, high = range.map { first[$0] + count[$0] }.max()!
            return low..<high
        }
    }

    /// Resizes `input` along `vertical ? y : x` from `n` to `m` pixels; the other axis is `across` long.
    static func pass(_ input: ImageRef, vertical: Bool, filter: Resize.Filter, from n: Int, to m: Int, across: Int,
                     premultiplyInput: Bool, unpremultiplyOutput: Bool) -> RenderPass {
        let taps = Taps(from: n, to: m, filter: filter)
        let width = vertical ? across : m, height = vertical ? m : across
        let footprint: @Sendable (PixelRect) -> PixelRect = { rect in
            if vertical {
                let rows = taps.span(rect.y..<(rect.y + rect.height))
                return PixelRect(x: rect.x, y: rows.lowerBound, width: rect.width, height: rows.count)
            }
            let columns = taps.span(rect.x..<(rect.x + rect.width))
            return PixelRect(x: columns.lowerBound, y: rect.y, width: columns.count, height: rect.height)
        }
        let ints: [Int32] = [vertical ? 1 : 0, filter.code, premultiplyInput ? 1 : 0, unpremultiplyOutput ? 1 : 0]
        return RenderPass(kernel: kernel, width: width, height: height, inputs: [PassInput(input, footprint: footprint)],
                          ints: ints, floats: taps.floats) { inputs, output in
            let source = inputs[0]
            let tapsPerPixel = max(1, taps.weights.count / (vertical ? height : width))
            output.forEachBand(rowCost: width * tapsPerPixel) { rows in
                taps.weights.withUnsafeBufferPointer { weights in
                    let window = Window(taps: taps, weights: weights, premultiply: premultiplyInput,
                                        unpremultiply: unpremultiplyOutput)
                    if vertical {
                        window.resampleColumns(source, width: width, rows: rows, output: output)
                    } else {
                        window.resampleRows(source, sourceWidth: n, width: width, rows: rows, output: output)
                    }
                }
            }
        }
    }

    /// The taps and alpha handling of one pass.
    private struct Window {
        let taps: Taps
        let weights: UnsafeBufferPointer<Float>
        let premultiply: Bool
        let unpremultiply: Bool

        @inline(__always)
        func finish(_ pixel: SIMD4<Float>) -> SIMD4<Float> {
            unpremultiply ? Alpha.unpremultiply(pixel) : pixel
        }

        /// Horizontal: each output pixel is a dot product over its row's taps.
        func resampleRows(_ source: FloatRows, sourceWidth: Int, width: Int, rows: Range<Int>, output: FloatRows) {
            let row = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: sourceWidth)
            defer { row.deallocate() }
            for y in rows {
                let line = source.row(y)
                if premultiply {
                    for x in 0..<sourceWidth { row[x] = Alpha.premultiply(line[x]) }
                } else {
                    for x in 0..<sourceWidth { row[x] = line[x] }
                }
                let out = output.row(y)
                for x in 0..<width {
                    let first = row.baseAddress! + taps.first[x], tap = weights.baseAddress! + taps.offset[x]
                    // Four partial sums: one chain of dependent adds made the loop wait
                    // on the adder's latency (half the time of a strong shrink).
                    let count = taps.count[x]
                    var s0 = SIMD4<Float>.zero, s1 = SIMD4<Float>.zero, s2 = SIMD4<Float>.zero, s3 = SIMD4<Float>.zero
                    var k = 0
                    while k + 4 <= count {
                        s0 += tap[k] * first[k]
                        s1 += tap[k + 1] * first[k + 1]
                        s2 += tap[k + 2] * first[k + 2]
                        s3 += tap[k + 3] * first[k + 3]
                        k += 4
                    }
                    while k < count {
                        s0 += tap[k] * first[k]
                        k += 1
                    }
                    let sum = (s0 + s1) + (s2 + s3)
                    out[x] = finish(sum)
                }
            }
        }

        /// Vertical: each output row is a weighted sum of source rows, in strips
        /// of columns so the window's rows stay in cache from one output row to the next.
        func resampleColumns(_ source: FloatRows, width: Int, rows: Range<Int>, output: FloatRows) {
            let strip = 256
            let sum = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: strip)
            defer { sum.deallocate() }
            for left in stride(from: 0, to: width, by: strip) {
                let columns = min(strip, width - left)
                for y in rows {
                    for x in 0..<columns { sum[x] = .zero }
                    for k in 0..<taps.count[y] {
                        let w = weights[taps.offset[y] + k]
                        let line = source.row(taps.first[y] + k) + left
                        if premultiply {
                            for x in 0..<columns { sum[x] += w * Alpha.premultiply(line[x]) }
                        } else {
                            for x in 0..<columns { sum[x] += w * line[x] }
                        }
                    }
                    let out = output.row(y) + left
                    for x in 0..<columns { out[x] = finish(sum[x]) }
                }
            }
        }
    }
}
