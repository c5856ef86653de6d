import Render
import KilnTestSupport
import Testing
import ImageCore
import CKernels
import Foundation

@Suite("adjust and grayscale: CPU and Vulkan agree with the reference")
struct AdjustTests {
    static let cases: [Adjust] = [
        Adjust(brightness: 0.1, contrast: 1.3, saturation: 1.5, exposure: 0.5, gamma: 2.2),
        Adjust(brightness: -0.2, contrast: 0.7, saturation: 0.4, exposure: -1, gamma: 0.6),
        Adjust(saturation: 1.2),
    ]

    @Test("adjust", arguments: cases)
    func adjust(_ adjust: Adjust) throws {
        try withVulkanIfAvailable { vulkan in
            try checkAgreement("adjust \(Render.Operation.adjust(adjust))", vulkan: vulkan) { _ in
                [.adjust(adjust)]
            } reference: { _, input in
                Reference.adjust(input, brightness: adjust.brightness, contrast: adjust.contrast, saturation: adjust.saturation,
                                 exposure: adjust.exposure, gamma: adjust.gamma)
            }
        }
    }

    @Test("gamma's power (kiln_power) is within 1.3·10⁻⁷ of the exact power; 0 and 1 exactly")
    func power() {
        var worst = 0.0
        for g: Float in [0.01, 1 / 2.2, 1 / 0.6, 2.2, 100] {
            #expect(kiln_power(0, g) == 0 && kiln_power(1, g) == 1, "g \(g)")
            // Every 4099th float in [0, 1], subnormals included.
            for bits in stride(from: UInt32(0), through: 0x3F80_0000, by: 4099) {
                let x = Float(bitPattern: bits)
                worst = max(worst, abs(Double(kiln_power(x, g)) - Foundation.pow(Double(x), Double(g))))
            }
        }
        #expect(worst <= 1.3e-7, "worst \(worst)")
    }

    @Test("grayscale")
    func grayscale() throws {
        try withVulkanIfAvailable { vulkan in
            try checkAgreement("grayscale", vulkan: vulkan) { _ in
                [.grayscale]
            } reference: { _, input in
                Reference.adjust(input, saturation: 0)
            }
        }
    }
}
