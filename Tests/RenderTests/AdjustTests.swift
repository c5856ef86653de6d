import Render
import KilnTestSupport
import Testing
import ImageCore

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
