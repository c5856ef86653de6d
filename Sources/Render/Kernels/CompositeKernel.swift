import CShaders
import Compute

/// composite — a watermark (straight alpha, already at its size) over the
/// image, "source over" with the mark's alpha times `opacity`:
/// `a = am + ab·(1 − am)`, `c = (cm·am + cb·ab·(1 − am)) / a` (0 where a = 0).
/// GPU twin: `Shaders/composite.comp`.
enum CompositeKernel {
    static let shader = Shader(name: "composite", spirv: kiln_spv_composite, size: kiln_spv_composite_size)

    /// `mark` (`markSize`) over `input` (`width × height`) with its top-left corner at `origin`.
    static func pass(_ input: ImageRef, mark: ImageRef, markSize: (width: Int, height: Int), origin: (x: Int, y: Int),
                     opacity: Double, width: Int, height: Int) -> RenderPass {
        let opacity = Float(opacity)
        let whole = PixelRect(width: markSize.width, height: markSize.height)
        return RenderPass(shader: shader, width: width, height: height,
                          inputs: [.pointwise(input), PassInput(mark) { _ in whole }],
                          ints: [origin.x, origin.y, markSize.width, markSize.height].map { Int32($0) },
                          floats: [opacity]) { inputs in
            let source = inputs[0]
            return source.pixels.withUnsafeBufferPointer { pixels in
                inputs[1].pixels.withUnsafeBufferPointer { markPixels in
                    nonisolated(unsafe) let pixels = pixels, markPixels = markPixels
                    return FloatImage.filled(width: width, height: height, depth: source.depth, rowCost: width * 4) { rows, output in
                        for y in rows {
                            for x in 0..<width {
                                let base = pixels[y * width + x]
                                let mx = x - origin.x, my = y - origin.y
                                guard mx >= 0, my >= 0, mx < markSize.width, my < markSize.height else {
                                    output[y * width + x] = base
                                    continue
                                }
                                let over = markPixels[my * markSize.width + mx]
                                let am = over.w * opacity
                                let keep = base.w * (1 - am)
                                let a = am + keep
                                var c = a > 0 ? (over * am + base * keep) / a : .zero
                                c = c.clamped(lowerBound: .zero, upperBound: .one)
                                c.w = a
                                output[y * width + x] = c
                            }
                        }
                    }
                }
            }
        }
    }
}
