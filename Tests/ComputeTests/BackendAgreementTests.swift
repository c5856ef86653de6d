import Compute
import VulkanCompute
import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

@Suite("Vulkan and CPU render stages agree")
struct BackendAgreementTests {
    @Test("CPU render is the identity on every canonical format")
    func cpuIdentity() throws {
        let seed = TestSeed()
        let backend = CPUBackend()
        for image in RandomImages.all(seed: seed.value) {
            let output = try backend.renderWhole(image, graph: PassGraph())
            #expect(output == image, "\(seed): \(image.width)×\(image.height) \(image.depth.rawValue)-bit")
        }
    }

    @Test("Vulkan (lavapipe) and CPU outputs are byte-identical and equal the input", .requiresVulkan)
    func vulkanMatchesCPU() throws {
        let seed = TestSeed()
        let recorder = ValidationRecorder()
        do {
            let vulkan = try VulkanTesting.backend(recorder: recorder)
            let cpu = CPUBackend()
            #expect(vulkan.kind == .vulkan && vulkan.label.hasPrefix("Vulkan · "))
            for image in RandomImages.all(seed: seed.value) {
                let gpuOutput = try vulkan.renderWhole(image, graph: PassGraph())
                let cpuOutput = try cpu.renderWhole(image, graph: PassGraph())
                let name = "\(seed): \(image.width)×\(image.height) \(image.depth.rawValue)-bit"
                #expect(gpuOutput.bytes == cpuOutput.bytes, "\(name): Vulkan and CPU differ")
                #expect(gpuOutput == image, "\(name): Vulkan output is not the input")
            }
        }
        VulkanTesting.expectNoValidationMessages(recorder)
    }

    /// Large images are split into dispatches of at most maxStorageBufferRange
    /// bytes of floats (128 MiB on lavapipe); small chunks test the same path cheaply.
    @Test("chunked dispatches (images larger than one storage-buffer binding) stay exact", .requiresVulkan,
          arguments: [256, 1000])
    func chunkedDispatches(_ maxPixels: Int) throws {
        let seed = TestSeed()
        let recorder = ValidationRecorder()
        do {
            let vulkan = try VulkanTesting.backend(recorder: recorder, maxPixelsPerDispatch: maxPixels)
            for image in RandomImages.all(seed: seed.value) {
                #expect(try vulkan.renderWhole(image, graph: PassGraph()) == image,
                        "\(seed): \(image.width)×\(image.height) \(image.depth.rawValue)-bit, chunks of \(maxPixels)")
            }
        }
        VulkanTesting.expectNoValidationMessages(recorder)
    }

    @Test("one Vulkan backend renders from several threads at once, reusing its buffers", .requiresVulkan)
    func concurrentRenders() throws {
        let seed = TestSeed()
        let recorder = ValidationRecorder()
        let failures = FailureList()
        do {
            let vulkan = try VulkanTesting.backend(recorder: recorder)
            let images = RandomImages.all(seed: seed.value).filter { $0.pixelCount < 10_000 }
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                // Growing and shrinking sizes exercise buffer reuse.
                for image in images.shuffled() {
                    do {
                        if try vulkan.renderWhole(image, graph: PassGraph()) != image {
                            failures.append("\(seed), worker \(worker): \(image.width)×\(image.height) \(image.depth.rawValue)-bit differs")
                        }
                    } catch {
                        failures.append("\(seed), worker \(worker): \(error)")
                    }
                }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all.joined(separator: "\n"))")
        VulkanTesting.expectNoValidationMessages(recorder)
    }
}
