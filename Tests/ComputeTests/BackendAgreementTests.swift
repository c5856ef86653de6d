import Compute
import Devices
import Foundation
import PNGCodec
import Synchronization
import Testing

@Suite("Vulkan and CPU render stages agree")
struct BackendAgreementTests {
    @Test("CPU render is the identity on every canonical format")
    func cpuIdentity() throws {
        let seed = UInt64.random(in: .min ... .max)
        let backend = CPUBackend()
        for image in RandomImages.all(seed: seed) {
            let output = try backend.render(image)
            #expect(output == image, "seed \(seed): \(image.width)×\(image.height) \(image.depth.rawValue)-bit")
        }
    }

    @Test("Vulkan (lavapipe) and CPU outputs are byte-identical and equal the input", .requiresVulkan)
    func vulkanMatchesCPU() throws {
        let seed = UInt64.random(in: .min ... .max)
        let recorder = ValidationRecorder()
        do {
            let vulkan = try VulkanTestSupport.backend(recorder: recorder)
            let cpu = CPUBackend()
            #expect(vulkan.kind == .vulkan && vulkan.label.hasPrefix("Vulkan · "))
            for image in RandomImages.all(seed: seed) {
                let gpuOutput = try vulkan.render(image)
                let cpuOutput = try cpu.render(image)
                let name = "seed \(seed): \(image.width)×\(image.height) \(image.depth.rawValue)-bit"
                #expect(gpuOutput.bytes == cpuOutput.bytes, "\(name): Vulkan and CPU differ")
                #expect(gpuOutput == image, "\(name): Vulkan output is not the input")
            }
        }
        VulkanTestSupport.expectNoValidationMessages(recorder)
    }

    /// Large images are split into dispatches of at most maxStorageBufferRange
    /// bytes of floats (128 MiB on lavapipe); small chunks test the same path cheaply.
    @Test("chunked dispatches (images larger than one storage-buffer binding) stay exact", .requiresVulkan,
          arguments: [256, 1000])
    func chunkedDispatches(_ maxPixels: Int) throws {
        let seed = UInt64.random(in: .min ... .max)
        let recorder = ValidationRecorder()
        do {
            let vulkan = try VulkanTestSupport.backend(recorder: recorder, maxPixelsPerDispatch: maxPixels)
            for image in RandomImages.all(seed: seed) {
                #expect(try vulkan.render(image) == image,
                        "seed \(seed): \(image.width)×\(image.height) \(image.depth.rawValue)-bit, chunks of \(maxPixels)")
            }
        }
        VulkanTestSupport.expectNoValidationMessages(recorder)
    }

    @Test("one Vulkan backend renders from several threads at once, reusing its buffers", .requiresVulkan)
    func concurrentRenders() throws {
        let seed = UInt64.random(in: .min ... .max)
        let recorder = ValidationRecorder()
        let failures = FailureList()
        do {
            let vulkan = try VulkanTestSupport.backend(recorder: recorder)
            let images = RandomImages.all(seed: seed).filter { $0.pixelCount < 10_000 }
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                // Growing and shrinking sizes exercise buffer reuse.
                for image in images.shuffled() {
                    do {
                        if try vulkan.render(image) != image {
                            failures.append("seed \(seed), worker \(worker): \(image.width)×\(image.height) \(image.depth.rawValue)-bit differs")
                        }
                    } catch {
                        failures.append("seed \(seed), worker \(worker): \(error)")
                    }
                }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all.joined(separator: "\n"))")
        VulkanTestSupport.expectNoValidationMessages(recorder)
    }
}

/// Failures collected from worker threads.
final class FailureList: Sendable {
    private let items = Mutex<[String]>([])
    func append(_ failure: String) { items.withLock { $0.append(failure) } }
    var all: [String] { items.withLock { $0 } }
}
