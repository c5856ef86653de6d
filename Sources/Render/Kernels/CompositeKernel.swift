internal import Compute

/// composite — a watermark (straight alpha, already at its size) over the
/// image, "source over" with the mark's alpha times `opacity`:
/// `a = am + ab·(1 − am)`, `c = (cm·am + cb·ab·(1 − am)) / a` (0 where a = 0).
/// GPU twin: `Shaders/composite.comp`.
enum CompositeKernel {
    static let kernel = KernelID("composite")

    /// `mark` (`markSize`) over `input` (`width × height`) with its top-left corner at `origin`.
    static func pass(_ input: ImageRef, mark: ImageRef, markSize: (width: Int, height: Int), origin: (x: Int, y: Int),
                     opacity: Double, width: Int, height: Int) -> RenderPass {
        let opacity = Float(opacity)
        return RenderPass(kernel: kernel, width: width, height: height,
                          inputs: [.pointwise(input),
                                   // The mark's rows under the output's (the executor clips them to the mark).
                                   PassInput(mark) { PixelRect(x: 0, y: $0.y - origin.y, width: markSize.width, height: $0.height) }],
                          ints: [origin.x, origin.y, markSize.width, markSize.height].map { Int32($0) },
                          floats: [opacity]) { inputs, output in
            let source = inputs[0], marks = inputs[1]
            output.forEachBand(rowCost: width * 4) { rows in
                for y in rows {
                    let line = source.row(y), out = output.row(y)
                    let my = y - origin.y
                    for x in 0..<width {
                        let base = line[x]
                        let mx = x - origin.x
                        guard mx >= 0, my >= 0, mx < markSize.width, my < markSize.height else {
                            out[x] = base
                            continue
                        }
                        let over = marks[mx, my]
                        let am = over.w * opacity
                        let keep = base.w * (1 - am)
                        let a = am + keep
                        var c = a > 0 ? (over * am + base * keep) / a : .zero
                        c = c.clamped(lowerBound: .zero, upperBound: .one)
                        c.w = a
                        out[x] = c
                    }
                }
            }
        }
    }
}
