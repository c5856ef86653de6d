import Foundation
internal import Compute
internal import CKernels

/// adjust — per pixel, straight alpha kept: exposure gain, brightness,
/// contrast around ½, saturation around Rec. 709 luma, then gamma; clamped to
/// 0…1. Grayscale is saturation 0. The loop is C's (`kiln_adjust_row`, with
/// a power of its own: `adjust.c`); GPU twin: `Shaders/adjust.comp`.
enum AdjustKernel {
    static let kernel = KernelID("adjust")

    /// The pass for `adjust` over `input` (`width × height`).
    static func pass(_ input: ImageRef, _ adjust: Adjust, width: Int, height: Int) -> RenderPass {
        let gain = Float(Foundation.pow(2.0, adjust.exposure))
        let brightness = Float(adjust.brightness), contrast = Float(adjust.contrast)
        let saturation = Float(adjust.saturation), inverseGamma = Float(1 / adjust.gamma)
        let applyGamma = adjust.gamma != 1
        let parameters = [gain, brightness, contrast, saturation, inverseGamma]
        return RenderPass(kernel: kernel, width: width, height: height, inputs: [.pointwise(input)],
                          ints: [applyGamma ? 1 : 0], floats: parameters) { inputs, output in
            let source = inputs[0]
            output.forEachBand(rowCost: width * 8) { rows in
                for y in rows {
                    kiln_adjust_row(source.row(y), width, parameters, applyGamma ? 1 : 0, output.row(y))
                }
            }
        }
    }
}
