import Render
import Testing

@Suite("blur and sharpen: CPU and Vulkan agree with the reference")
struct FilterTests {
    @Test("blur", .requiresVulkan, arguments: [0.4, 1.5, 3.0, 25.0])
    func blur(_ sigma: Double) throws {
        try withVulkan { vulkan in
            try checkAgreement("blur \(sigma)", vulkan: vulkan) { _ in
                [.blur(Blur(sigma: sigma))]
            } reference: { _, input in
                Reference.blur(input, sigma: sigma)
            }
        }
    }

    @Test("sharpen", .requiresVulkan, arguments: [Sharpen(amount: 0.5), Sharpen(amount: 1.5, sigma: 2, threshold: 0.05)])
    func sharpen(_ sharpen: Sharpen) throws {
        try withVulkan { vulkan in
            try checkAgreement("sharpen \(Render.Operation.sharpen(sharpen))", vulkan: vulkan) { _ in
                [.sharpen(sharpen)]
            } reference: { _, input in
                Reference.sharpen(input, amount: sharpen.amount, sigma: sharpen.sigma, threshold: sharpen.threshold)
            }
        }
    }
}
