import Compute
import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Render
import Testing

/// SPEC §4.3's bound: 1 per 8-bit channel, 256 per 16-bit channel.
func bound(_ depth: PixelBuffer.Depth) -> Int { depth == .eight ? 1 : 256 }

/// The largest difference between two images' samples; nil when their sizes differ.
func maxDifference(_ image: PixelBuffer, _ samples: [Int], width: Int, height: Int) -> Int? {
    guard image.width == width, image.height == height else { return nil }
    var most = 0
    for y in 0..<height {
        for x in 0..<width {
            for c in 0..<4 { most = max(most, abs(image.sample(x, y, c) - samples[(y * width + x) * 4 + c])) }
        }
    }
    return most
}

/// The samples of a buffer in the layout of `ReferenceImage.samples`.
func samples(_ image: PixelBuffer) -> [Int] {
    (0..<(image.width * image.height * 4)).map { image.sample(($0 / 4) % image.width, $0 / 4 / image.width, $0 % 4) }
}

/// Renders every random test image (from `seed`) with the operations `operations(image)` on the
/// CPU and, when `vulkan` is given, on Vulkan, and checks each against `reference` and the two
/// against each other within SPEC §4.3's bound. The CPU checks run on every machine.
/// Returns the largest differences seen (CPU vs reference, Vulkan vs reference, Vulkan vs CPU) per depth.
@discardableResult
func checkAgreement(_ label: String, vulkan: (any PassBackend)?, images: [PixelBuffer]? = nil, seed: TestSeed = TestSeed(),
                    operations: (PixelBuffer) -> [Render.Operation],
                    reference: (PixelBuffer, ReferenceImage) -> ReferenceImage,
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Int] {
    var worst: [String: Int] = [:]
    for image in images ?? TestImages.all(seed: seed.value) {
        let name = "\(label), \(seed), \(TestImages.name(image)), \(image.hasAlpha ? "with alpha" : "opaque")"
        let pipeline = try RenderPipeline(operations: operations(image))
        let expected = reference(image, ReferenceImage(image))
        let wanted = expected.samples(depth: image.depth)
        let limit = bound(image.depth)
        var outputs = [("CPU", try pipeline.render(image, on: CPUBackend()))]
        if let vulkan { outputs.append(("Vulkan", try pipeline.render(image, on: vulkan))) }
        for (backend, output) in outputs {
            let difference = maxDifference(output, wanted, width: expected.width, height: expected.height)
            #expect(difference != nil && difference! <= limit,
                    "\(name): \(backend) vs float64 reference: max difference \(difference.map(String.init) ?? "size \(output.width)×\(output.height) ≠ \(expected.width)×\(expected.height)")",
                    sourceLocation: sourceLocation)
            worst["\(backend) vs reference, \(image.depth.rawValue)-bit", default: 0] =
                max(worst["\(backend) vs reference, \(image.depth.rawValue)-bit", default: 0], difference ?? .max)
        }
        if outputs.count == 2 {
            let difference = maxDifference(outputs[1].1, samples(outputs[0].1), width: outputs[0].1.width, height: outputs[0].1.height)
            #expect(difference != nil && difference! <= limit, "\(name): Vulkan vs CPU: max difference \(difference ?? -1)",
                    sourceLocation: sourceLocation)
            worst["Vulkan vs CPU, \(image.depth.rawValue)-bit", default: 0] =
                max(worst["Vulkan vs CPU, \(image.depth.rawValue)-bit", default: 0], difference ?? .max)
        }
    }
    print("\(label) (\(seed)): max differences \(worst.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; "))")
    return worst
}
