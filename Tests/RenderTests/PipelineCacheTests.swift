import Compute
import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Render
import Testing

@Suite("Vulkan pipelines are built once per shader per device")
struct PipelineCacheTests {
    @Test("several images, several threads: one build per shader", .requiresVulkan)
    func oneBuildPerShader() throws {
        let seed = TestSeed()
        var generator = seed.generator
        let images = (0..<4).map { i in
            TestImages.image(width: 20 + 3 * i, height: 11 + i, depth: i % 2 == 0 ? .eight : .sixteen, alpha: true,
                             using: &generator)
        }
        let operations: [Render.Operation] = [.resize(Resize(width: 17, height: 9, fit: .fill)), .blur(Blur(sigma: 1)),
                                              .sharpen(Sharpen(amount: 0.5)), .grayscale, .rotate(Rotate(degrees: 90))]
        let pipeline = try RenderPipeline(operations: operations)
        let shaders = Set(try pipeline.graph(width: 20, height: 11).passes.map(\.kernel.name))
        #expect(shaders.count >= 5, "the graph uses several shaders: \(shaders.sorted())")
        try withVulkan { vulkan in
            #expect(vulkan.pipelineBuilds == 2, "unpack and pack are built with the backend")
            // Two threads at once ask for the same shaders first.
            let failures = FailureList()
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                for image in images {
                    do { _ = try pipeline.render(image, on: vulkan) } catch { failures.append("\(seed): \(error)") }
                }
            }
            #expect(failures.all.isEmpty, "\(failures.all)")
            #expect(vulkan.pipelineBuilds == 2 + shaders.count,
                    "\(vulkan.pipelineBuilds) pipeline builds for \(shaders.count) shaders (\(shaders.sorted())) + unpack, pack over \(2 * images.count) renders")
        }
    }
}
