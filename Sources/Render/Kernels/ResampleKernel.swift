internal import Compute
internal import CKernels
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

        /// Push constants of the shader: scale, support, filter scale, start.
        let floats: [Float]

        /// Output indices per block of the horizontal pass (whose source pixels stay in cache).
        static let blockWidth = 256
        /// Each block's first output index and the source indices it reads (computed once, not
        /// per chunk: 2 % of the 16000×9000 photo's fit to 1920 went to it).
        let blocks: [(Int, Range<Int>)]

        /// The taps of `m` outputs from `n` source pixels, of which those from `span.start` over
        /// `span.span` pixels hold the picture (all `n` but after a shrink on load, ``PassBuilder/Extent``):
        /// outputs `first ..< first + m` of a resize to `total` (`m`: all of them), each pixel exactly as
        /// the whole resize makes it (a cover's crop made without the rest).
        init(from n: Int, to m: Int, of total: Int? = nil, first firstOutput: Int = 0,
             span: (start: Double, span: Double)? = nil, filter: Resize.Filter) {
            let (start, length) = span ?? (0, Double(n))
            let scale = length / Double(total ?? m)
            let filterScale = max(scale, 1)
            let support = filter.support * filterScale
            floats = [Float(scale), Float(support), Float(filterScale), Float(start)]
            var first = [Int](), count = [Int](), offset = [Int](), weights = [Float]()
            for i in 0..<m {
                let center = floats[3] + (Float(i + firstOutput) + 0.5) * floats[0]
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
                let sum = raw.reduce(0, +)
                first.append(start)
                count.append(stop - start)
                weights += raw.map { Float($0 / sum) }
            }
            self.first = first
            self.count = count
            self.offset = offset
            self.weights = weights
            blocks = stride(from: 0, to: m, by: Self.blockWidth).map { left in
                (left, Self.span(left..<min(left + Self.blockWidth, m), first: first, count: count))
            }
        }

        /// Calls `body` with the arrays' storage: first, count, offset, weights.
        func withUnsafePointers<R>(
            _ body: (UnsafePointer<Int>, UnsafePointer<Int>, UnsafePointer<Int>, UnsafePointer<Float>) -> R
        ) -> R {
            first.withUnsafeBufferPointer { first in
                count.withUnsafeBufferPointer { count in
                    offset.withUnsafeBufferPointer { offset in
                        weights.withUnsafeBufferPointer { body(first.baseAddress!, count.baseAddress!, offset.baseAddress!, $0.baseAddress!) }
                    }
                }
            }
        }

        /// The source indices that outputs `range` read.
        func span(_ range: Range<Int>) -> Range<Int> {
            Self.span(range, first: first, count: count)
        }

        private static func span(_ range: Range<Int>, first: [Int], count: [Int]) -> Range<Int> {
            let low = range.map { first[$0] }.min()!, high = range.map { first[$0] + count[$0] }.max()!
            return low..<high
        }
    }

    /// Resizes `input` along `vertical ? y : x` from `n` to `m` pixels (outputs `first ..< first + m` of a resize to
    /// `total`, where given); the other axis is `across` long.
    static func pass(_ input: ImageRef, vertical: Bool, filter: Resize.Filter, from n: Int, to m: Int, of total: Int? = nil,
                     first: Int = 0, span: (start: Double, span: Double)? = nil, across: Int,
                     premultiplyInput: Bool, unpremultiplyOutput: Bool) -> RenderPass {
        let taps = Taps(from: n, to: m, of: total, first: first, span: span, filter: filter)
        let width = vertical ? across : m, height = vertical ? m : across
        let footprint: @Sendable (PixelRect) -> PixelRect = { rect in
            if vertical {
                let rows = taps.span(rect.y..<(rect.y + rect.height))
                return PixelRect(x: rect.x, y: rows.lowerBound, width: rect.width, height: rows.count)
            }
            let columns = taps.span(rect.x..<(rect.x + rect.width))
            return PixelRect(x: columns.lowerBound, y: rect.y, width: columns.count, height: rect.height)
        }
        let ints: [Int32] = [vertical ? 1 : 0, filter.code, premultiplyInput ? 1 : 0, unpremultiplyOutput ? 1 : 0, Int32(first)]
        return RenderPass(kernel: kernel, width: width, height: height, inputs: [PassInput(input, footprint: footprint)],
                          ints: ints, floats: taps.floats) { inputs, output in
            let source = inputs[0]
            let tapsPerPixel = max(1, taps.weights.count / (vertical ? height : width))
            output.forEachBand(rowCost: width * tapsPerPixel) { rows in
                taps.withUnsafePointers { first, count, offset, weights in
                    let window = Window(taps: taps, first: first, count: count, offset: offset, weights: weights,
                                        premultiply: premultiplyInput, unpremultiply: unpremultiplyOutput)
                    if vertical {
                        window.resampleColumns(source, width: width, rows: rows, output: output)
                    } else {
                        window.resampleRows(source, sourceWidth: n, width: width, rows: rows, output: output)
                    }
                }
            }
        }
    }

    /// The taps (their arrays as pointers) and alpha handling of one pass.
    private struct Window {
        let taps: Taps
        let first: UnsafePointer<Int>
        let count: UnsafePointer<Int>
        let offset: UnsafePointer<Int>
        let weights: UnsafePointer<Float>
        let premultiply: Bool
        let unpremultiply: Bool

        /// Horizontal: each output pixel is a dot product over its row's taps
        /// (`kiln_resample_rows`), four rows at a time sharing the taps' weights,
        /// in blocks of output columns whose source pixels, premultiplied, stay in
        /// the core's cache (4 rows × about 2,200 pixels for a 16000 → 1920 shrink).
        /// Copying whole rows for the block of 4 rows took a megabyte a call,
        /// which glibc maps and unmaps each time: 1.2 s of page faults on the
        /// 16000×9000 photo fit to 1920.
        func resampleRows(_ source: FloatRows, sourceWidth: Int, width: Int, rows: Range<Int>, output: FloatRows) {
            let group = 4, block = Taps.blockWidth
            let blocks = taps.blocks
            let span = premultiply ? blocks.map(\.1.count).max()! : 0
            let copies = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: group * span)
            let sources = UnsafeMutablePointer<UnsafeRawPointer?>.allocate(capacity: group)
            let outputs = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: group)
            defer {
                copies.deallocate()
                sources.deallocate()
                outputs.deallocate()
            }
            for top in stride(from: rows.lowerBound, to: rows.upperBound, by: group) {
                let held = min(group, rows.upperBound - top)
                for (left, columns) in blocks {
                    for j in 0..<held {
                        let line = source.row(top + j)
                        // Opaque pixels premultiply to themselves: read where they lie.
                        if premultiply && !source.opaque {
                            let copy = copies + j * span
                            kiln_premultiply(line + columns.lowerBound, columns.count, copy)
                            sources[j] = UnsafeRawPointer(copy)
                        } else {
                            sources[j] = UnsafeRawPointer(line + columns.lowerBound)
                        }
                        outputs[j] = UnsafeMutableRawPointer(output.row(top + j) + left)
                    }
                    let n = min(block, width - left)
                    kiln_resample_rows(sources, outputs, held, n, columns.lowerBound, first + left,
                                       count + left, offset + left, weights, unpremultiply ? 1 : 0)
                }
            }
        }

        /// Vertical: each output row is a weighted sum of source rows (`kiln_resample_columns`),
        /// in strips of columns so the window's rows stay in cache from one output row to the next.
        func resampleColumns(_ source: FloatRows, width: Int, rows: Range<Int>, output: FloatRows) {
            let strip = 256
            for left in stride(from: 0, to: width, by: strip) {
                let columns = min(strip, width - left)
                for y in rows {
                    kiln_resample_columns(source.row(first[y]) + left, source.width, count[y],
                                          weights + offset[y], columns,
                                          premultiply ? 1 : 0, unpremultiply ? 1 : 0, output.row(y) + left)
                }
            }
        }
    }
}
