internal import Compute

/// sharpen — unsharp mask on straight color, alpha kept: with the source o
/// and b, its blur weighted by alpha (the premultiplied blur, unpremultiplied;
/// o where the blur is transparent), `d = o − b` and `c = o + amount·d·w`,
/// where the weight `w` ramps from 0 at `|d| = threshold` to 1 at
/// `|d| = 2·threshold` (w = 1 when threshold is 0); clamped to 0…1. The ramp
/// keeps the result continuous in `d`: with a hard step, float rounding that
/// differs between backends flipped whole pixels (seen: 6 levels apart on a
/// 24 MP image).
///
/// Rejected: sharpening premultiplied color with alpha kept (this kernel until
/// 2026-11-28). Where alpha varies, the premultiplied colors differ though the
/// color does not: gray 128 beside the same gray at alpha 0.25 became 157 and
/// 13, and next to transparency the edge turned bright, as if it met black.
/// ImageMagick's `-unsharp` and vips' `sharpen` leave a single color as it is;
/// so does this one. GPU twin: `Shaders/sharpen.comp`.
enum SharpenKernel {
    static let kernel = KernelID("sharpen")

    /// Sharpens `input` with `blurred`, its premultiplied blur.
    static func pass(_ input: ImageRef, blurred: ImageRef, amount: Double, threshold: Double,
                     width: Int, height: Int) -> RenderPass {
        let amount = Float(amount), threshold = Float(threshold)
        return RenderPass(kernel: kernel, width: width, height: height, inputs: [.pointwise(input), .pointwise(blurred)],
                          floats: [amount, threshold]) { inputs, output in
            let source = inputs[0], blurred = inputs[1]
            let zero = SIMD4<Float>(repeating: 0), one = SIMD4<Float>(repeating: 1)
            output.forEachBand(rowCost: width * 8) { rows in
                for y in rows {
                    let line = source.row(y), blur = blurred.row(y), out = output.row(y)
                    for x in 0..<width {
                        let original = line[x]
                        guard original.w >= Alpha.transparent else {
                            out[x] = .zero
                            continue
                        }
                        var difference = original - (blur[x].w >= Alpha.transparent ? Alpha.unpremultiply(blur[x]) : original)
                        difference.w = 0
                        let weight = threshold > 0
                            ? (pointwiseMax(difference, -difference) / threshold - 1).clamped(lowerBound: .zero, upperBound: .one)
                            : .one
                        var c = original + amount * difference * weight
                        c.replace(with: zero, where: c .< zero)
                        c.replace(with: one, where: c .> one)
                        out[x] = c
                    }
                }
            }
        }
    }
}
