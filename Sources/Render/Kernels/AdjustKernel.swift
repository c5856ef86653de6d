import Foundation
internal import Compute

/// adjust — per pixel, straight alpha kept: exposure gain, brightness,
/// contrast around ½, saturation around Rec. 709 luma, then gamma; clamped to
/// 0…1. Grayscale is saturation 0. GPU twin: `Shaders/adjust.comp`.
enum AdjustKernel {
    static let kernel = KernelID("adjust")

    /// Rec. 709 luma weights.
    static let luma = SIMD3<Float>(0.2126, 0.7152, 0.0722)

    /// The pass for `adjust` over `input` (`width × height`).
    static func pass(_ input: ImageRef, _ adjust: Adjust, width: Int, height: Int) -> RenderPass {
        let gain = Float(Foundation.pow(2.0, adjust.exposure))
        let brightness = Float(adjust.brightness), contrast = Float(adjust.contrast)
        let saturation = Float(adjust.saturation), inverseGamma = Float(1 / adjust.gamma)
        let applyGamma = adjust.gamma != 1
        return RenderPass(kernel: kernel, width: width, height: height, inputs: [.pointwise(input)],
                          ints: [applyGamma ? 1 : 0],
                          floats: [gain, brightness, contrast, saturation, inverseGamma]) { inputs, output in
            let source = inputs[0]
            output.forEachBand(rowCost: width * 8) { rows in
                for y in rows {
                    let line = source.row(y), out = output.row(y)
                    for x in 0..<width {
                        let pixel = line[x]
                        var c = SIMD3(pixel.x, pixel.y, pixel.z) * gain + brightness
                        c = (c - 0.5) * contrast + 0.5
                        let y = (c * luma).sum()
                        c = y + (c - y) * saturation
                        if applyGamma {
                            c = c.clamped(lowerBound: .zero, upperBound: .one)
                            c = SIMD3(powf(c.x, inverseGamma), powf(c.y, inverseGamma), powf(c.z, inverseGamma))
                        }
                        c = c.clamped(lowerBound: .zero, upperBound: .one)
                        out[x] = SIMD4(c, pixel.w)
                    }
                }
            }
        }
    }
}
