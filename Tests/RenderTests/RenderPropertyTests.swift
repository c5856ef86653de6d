import Compute
import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import PropertyBased
import Render
import Testing

/// Random operation lists with ordinary and hostile parameters (`OperationGen`)
/// on random tiny images, through the library: each list is refused as a whole
/// (a parameter out of range) or renders every image or fails it with a
/// `RenderError`; no image made exceeds the pixel limit; and where Vulkan is,
/// it gives the CPU's outcome, samples within SPEC §4.3's bound.
@Suite("property: operation lists render or are refused; CPU and Vulkan agree")
struct RenderPropertyTests {
    /// Small, so that upscales reach it often.
    static let pixelLimit = 1 << 18

    @Test func randomOperationLists() throws {
        let seed = TestSeed()
        let count = PropertyCases.count(ciDefault: 300)
        var operationsRandom = Xoshiro(seed: (seed.value, 0x9E37_79B9_7F4A_7C15, 0xBF58_476D_1CE4_E5B9, 1))
        var imagesRandom = seed.generator
        let work = try TemporaryDirectory()
        let mark = work.join("mark.png")
        try Data(PNGEncoder.encode(TestImages.image(width: 5, height: 3, depth: .eight, alpha: true, using: &imagesRandom)))
            .write(to: URL(fileURLWithPath: mark))
        let lists = OperationGen.operations(mark: mark)
        var tally = (refused: 0, rendered: 0, failed: 0, compared: 0)
        try withVulkanIfAvailable { vulkan in
            for index in 0..<count {
                let operations = lists.run(using: &operationsRandom)
                let image = TestImages.image(width: Int.random(in: 1...12, using: &imagesRandom),
                                             height: Int.random(in: 1...12, using: &imagesRandom),
                                             depth: Bool.random(using: &imagesRandom) ? .eight : .sixteen,
                                             alpha: Bool.random(using: &imagesRandom), using: &imagesRandom)
                let label = "\(seed), case \(index) of \(count): \(operations) on \(TestImages.name(image))"
                let pipeline: RenderPipeline
                do throws(RenderError) {
                    pipeline = try RenderPipeline(operations: operations, maxPixels: Self.pixelLimit)
                } catch {
                    switch error {
                    case .invalidParameter, .imageTooLarge: tally.refused += 1
                    default: Issue.record("\(label): refused for \(error)")
                    }
                    continue
                }
                let cpu = Result { try pipeline.render(image, on: CPUBackend()) }
                switch cpu {
                case .success(let output):
                    tally.rendered += 1
                    #expect(output.pixelCount <= Self.pixelLimit, "\(label): \(output.width)×\(output.height)")
                case .failure(let error):
                    tally.failed += 1
                    #expect(error is RenderError, "\(label): CPU failed with \(error)")
                }
                guard let vulkan else { continue }
                tally.compared += 1
                switch (cpu, Result { try pipeline.render(image, on: vulkan) }) {
                case (.success(let a), .success(let b)):
                    let difference = maxDifference(b, samples(a), width: a.width, height: a.height)
                    #expect(difference.map { $0 <= bound(image.depth) } == true,
                            "\(label): Vulkan vs CPU max difference \(difference.map(String.init) ?? "sizes differ")")
                case (.failure(let a), .failure(let b)):
                    #expect("\(a)" == "\(b)", "\(label): CPU and Vulkan fail differently")
                case (let a, let b):
                    Issue.record("\(label): CPU \(a), Vulkan \(b)")
                }
            }
        }
        print("render properties: \(count) cases (\(PropertyCases.variable)), \(seed): \(tally.refused) refused, "
              + "\(tally.rendered) rendered, \(tally.failed) failed per image, \(tally.compared) compared with Vulkan")
        #expect(count == 0 || (tally.rendered > 0 && tally.refused > 0), "the generator reaches both outcomes")
    }
}
