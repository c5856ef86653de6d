import KilnTestSupport
import Compute
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

    /// A faint 16-bit alpha (50 of 65535) is kept with its color through a blur, a sharpen and a resize: below 1/1024
    /// (alphas 1–63), a filtered pixel was made transparent, so a faint shadow lost its tail where a filter ran.
    @Test("a faint 16-bit alpha survives the filters")
    func faintSixteenBitAlphaSurvives() throws {
        let pixel: [UInt16] = [51400, 25700, 12850, 50]
        let samples = [[UInt16]](repeating: pixel, count: 24 * 16).joined()
        let image = PixelBuffer(width: 24, height: 16, depth: .sixteen,
                                bytes: samples.flatMap { withUnsafeBytes(of: $0) { Array($0) } })
        let cases: [(Render.Operation, width: Int, height: Int)] = [(.blur(Blur(sigma: 1)), 24, 16),
                                                                    (.sharpen(Sharpen(amount: 1)), 24, 16),
                                                                    (.resize(Resize(width: 12, height: 8)), 12, 8)]
        for (operation, width, height) in cases {
            try withVulkanIfAvailable { vulkan in
                try checkAgreement("\(operation), faint alpha", vulkan: vulkan, images: [image]) { _ in
                    [operation]
                } reference: { _, input in
                    .generate(width: width, height: height) { _, _ in input[0, 0] }
                }
            }
        }
    }

    /// One color beside transparency stays that color through Lanczos: its lobes take an opaque edge's alpha past 1,
    /// and dividing the colour by the alpha clamped to 1 first made an opaque gray 128 into 143 (8-bit) and 32896 into
    /// 36762 (16-bit), enlarged or reduced, on both backends; vips and ImageMagick keep 128.
    @Test("Lanczos keeps one color as it is beside transparency", arguments: [200, 37])
    func lanczosKeepsOneColorBesideTransparency(width: Int) throws {
        for depth in [PixelBuffer.Depth.eight, .sixteen] {
            let scale = depth == .eight ? 1 : 257, maximum = depth == .eight ? 255 : 65535
            var samples: [Int] = []
            for _ in 0..<20 { for x in 0..<81 { samples += x < 40 ? [128 * scale, 128 * scale, 128 * scale, maximum] : [0, 0, 0, 0] } }
            let bytes = depth == .eight ? samples.map { UInt8($0) }
                : samples.flatMap { withUnsafeBytes(of: UInt16($0)) { Array($0) } }
            let image = PixelBuffer(width: 81, height: 20, depth: depth, bytes: bytes)
            let pipeline = try RenderPipeline(operations: [.resize(Resize(width: width, height: nil, upscale: true))])
            try withVulkanIfAvailable { vulkan in
                var outputs = [("CPU", try pipeline.render(image, on: CPUBackend()))]
                if let vulkan { outputs.append(("Vulkan", try pipeline.render(image, on: vulkan))) }
                for (backend, output) in outputs {
                    let values = RenderTests.samples(output)
                    let off = stride(from: 0, to: values.count, by: 4).filter { i in
                        values[i + 3] > 0 && (0..<3).contains { abs(values[i + $0] - 128 * scale) > 1 }
                    }
                    #expect(output.width == width && off.isEmpty,
                            "\(backend), \(depth.rawValue)-bit, \(width) wide: \(off.count) pixels off, e.g. \(off.first.map { Array(values[$0..<($0 + 4)]) } ?? [])")
                }
            }
        }
    }

    /// One color whose alpha varies stays that color: sharpening premultiplied color made gray 128 beside the same
    /// gray at alpha 0.25 into 157 and 13 (ImageMagick's `-unsharp` and vips' `sharpen` leave it as it is).
    @Test("sharpen leaves one color as it is where alpha varies")
    func sharpenKeepsOneColorUnderVaryingAlpha() throws {
        let alphas: [UInt16] = [65535, 16384, 4096, 257]
        let images = [PixelBuffer.Depth.eight, .sixteen].map { depth in
            let scale: UInt16 = depth == .eight ? 1 : 257
            var samples: [UInt16] = []
            for y in 0..<24 {
                for x in 0..<32 {
                    let alpha = alphas[(x / 8 + y / 12) % alphas.count]
                    samples += [200 * scale, 100 * scale, 50 * scale, depth == .eight ? alpha / 257 : alpha]
                }
            }
            let bytes = depth == .eight ? samples.map { UInt8($0) } : samples.flatMap { withUnsafeBytes(of: $0) { Array($0) } }
            return PixelBuffer(width: 32, height: 24, depth: depth, bytes: bytes)
        }
        try withVulkanIfAvailable { vulkan in
            try checkAgreement("sharpen, one color", vulkan: vulkan, images: images) { _ in
                [.sharpen(Sharpen(amount: 3, sigma: 2))]
            } reference: { _, input in
                input
            }
        }
    }
}
