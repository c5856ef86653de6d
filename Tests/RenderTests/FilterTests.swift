import KilnTestSupport
import ImageCore
import Render
import Testing

@Suite("blur and sharpen: CPU and Vulkan agree with the reference")
struct FilterTests {
    @Test("blur", arguments: [0.4, 1.5, 3.0, 25.0])
    func blur(_ sigma: Double) throws {
        try withVulkanIfAvailable { vulkan in
            try checkAgreement("blur \(sigma)", vulkan: vulkan) { _ in
                [.blur(Blur(sigma: sigma))]
            } reference: { _, input in
                Reference.blur(input, sigma: sigma)
            }
        }
    }

    /// Larger than `TestImages.sizes`: the CPU kernel's column strips (128
    /// wide, the last one partial) and row bands (tall images), whose seams must not show.
    @Test("blur across the CPU kernel's strips and bands",
          arguments: [(301, 90, 2.0), (150, 700, 1.0), (260, 300, 8.0)])
    func blurTiles(_ width: Int, _ height: Int, _ sigma: Double) throws {
        let seed = TestSeed()
        var generator = seed.generator
        let images = [TestImages.image(width: width, height: height, depth: .eight, alpha: true, using: &generator),
                      TestImages.image(width: width, height: height, depth: .sixteen, alpha: true, using: &generator)]
        try withVulkanIfAvailable { vulkan in
            try checkAgreement("blur \(sigma), \(width)×\(height)", vulkan: vulkan, images: images, seed: seed) { _ in
                [.blur(Blur(sigma: sigma))]
            } reference: { _, input in
                Reference.blur(input, sigma: sigma)
            }
        }
    }

    @Test("sharpen", arguments: [Sharpen(amount: 0.5), Sharpen(amount: 1.5, sigma: 2, threshold: 0.05)])
    func sharpen(_ sharpen: Sharpen) throws {
        try withVulkanIfAvailable { vulkan in
            try checkAgreement("sharpen \(Render.Operation.sharpen(sharpen))", vulkan: vulkan) { _ in
                [.sharpen(sharpen)]
            } reference: { _, input in
                Reference.sharpen(input, amount: sharpen.amount, sigma: sharpen.sigma, threshold: sharpen.threshold)
            }
        }
    }
}
