import CShaders
import Compute

/// sharpen — unsharp mask on premultiplied color, alpha kept: with the
/// source o and its blur b (premultiplied), `d = o − b` and
/// `c = o + amount·d·w`, where the weight `w` ramps from 0 at `|d| = threshold`
/// to 1 at `|d| = 2·threshold` (w = 1 when threshold is 0); then unpremultiplied
/// (clamped). The ramp keeps the result continuous in `d`: with a hard step,
/// float rounding that differs between backends flipped whole pixels (seen:
/// 6 levels apart on a 24 MP image). GPU twin: `Shaders/sharpen.comp`.
enum SharpenKernel {
    static let shader = Shader(name: "sharpen", spirv: kiln_spv_sharpen, size: kiln_spv_sharpen_size)

    /// Sharpens `input` with `blurred`, its premultiplied blur.
    static func pass(_ input: ImageRef, blurred: ImageRef, amount: Double, threshold: Double,
                     width: Int, height: Int) -> RenderPass {
        let amount = Float(amount), threshold = Float(threshold)
        return RenderPass(shader: shader, width: width, height: height, inputs: [.pointwise(input), .pointwise(blurred)],
                          floats: [amount, threshold]) { inputs in
            let source = inputs[0]
            return source.pixels.withUnsafeBufferPointer { pixels in
                inputs[1].pixels.withUnsafeBufferPointer { blurred in
                    nonisolated(unsafe) let pixels = pixels, blurred = blurred
                    return FloatImage.filled(width: width, height: height, depth: source.depth, rowCost: width * 8) { rows, output in
                        for i in (rows.lowerBound * width)..<(rows.upperBound * width) {
                            let original = Alpha.premultiply(pixels[i])
                            let difference = original - blurred[i]
                            let weight = threshold > 0
                                ? (pointwiseMax(difference, -difference) / threshold - 1).clamped(lowerBound: .zero, upperBound: .one)
                                : .one
                            var c = original + amount * difference * weight
                            c.w = original.w
                            output[i] = Alpha.unpremultiply(c)
                        }
                    }
                }
            }
        }
    }
}
