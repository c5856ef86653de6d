internal import Compute

/// sharpen — unsharp mask on premultiplied color, alpha kept: with the
/// source o and its blur b (premultiplied), `d = o − b` and
/// `c = o + amount·d·w`, where the weight `w` ramps from 0 at `|d| = threshold`
/// to 1 at `|d| = 2·threshold` (w = 1 when threshold is 0); then unpremultiplied
/// (clamped). The ramp keeps the result continuous in `d`: with a hard step,
/// float rounding that differs between backends flipped whole pixels (seen:
/// 6 levels apart on a 24 MP image). GPU twin: `Shaders/sharpen.comp`.
enum SharpenKernel {
    static let kernel = KernelID("sharpen")

    /// Sharpens `input` with `blurred`, its premultiplied blur.
    static func pass(_ input: ImageRef, blurred: ImageRef, amount: Double, threshold: Double,
                     width: Int, height: Int) -> RenderPass {
        let amount = Float(amount), threshold = Float(threshold)
        return RenderPass(kernel: kernel, width: width, height: height, inputs: [.pointwise(input), .pointwise(blurred)],
                          floats: [amount, threshold]) { inputs, output in
            let source = inputs[0], blurred = inputs[1]
            output.forEachBand(rowCost: width * 8) { rows in
                for y in rows {
                    let line = source.row(y), blur = blurred.row(y), out = output.row(y)
                    for x in 0..<width {
                        let original = Alpha.premultiply(line[x])
                        let difference = original - blur[x]
                        let weight = threshold > 0
                            ? (pointwiseMax(difference, -difference) / threshold - 1).clamped(lowerBound: .zero, upperBound: .one)
                            : .one
                        var c = original + amount * difference * weight
                        c.w = original.w
                        out[x] = Alpha.unpremultiply(c)
                    }
                }
            }
        }
    }
}
