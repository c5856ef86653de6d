import Compute
import VulkanCompute
import KilnTestSupport
import ImageCore
import Testing

@Suite("Device-lost fault injection")
struct FaultInjectionTests {
    @Test("the N-th submission reports device loss, and the device stays lost", .requiresVulkan,
          arguments: [1, 2])
    func deviceLostAtSubmission(_ n: Int) throws {
        let recorder = ValidationRecorder()
        do {
            let vulkan = try VulkanTesting.backend(recorder: recorder, deviceLostAt: n)
            var generator = SeededGenerator(seed: 7)
            let image = RandomImages.image(width: 5, height: 3, depth: .sixteen, using: &generator)
            for _ in 1..<n {
                #expect(try vulkan.renderWhole(image, graph: PassGraph()) == image)
            }
            #expect(throws: ComputeError.deviceLost(call: "vkQueueSubmit")) { try vulkan.renderWhole(image, graph: PassGraph()) }
            #expect(throws: ComputeError.deviceLost(call: "vkQueueSubmit")) { try vulkan.renderWhole(image, graph: PassGraph()) }
        }
        VulkanTesting.expectNoValidationMessages(recorder)
    }

    @Test("KILN_FAULT_DEVICE_LOST_AT, KILN_VULKAN_VALIDATION and KILN_VULKAN_RUNS are read into the options")
    func optionFromEnvironment() {
        #expect(VulkanOptions.fromEnvironment(["KILN_FAULT_DEVICE_LOST_AT": "3"]).deviceLostAtSubmission == 3)
        #expect(VulkanOptions.fromEnvironment([:]).deviceLostAtSubmission == nil)
        #expect(VulkanOptions.fromEnvironment(["KILN_FAULT_DEVICE_LOST_AT": "0"]).deviceLostAtSubmission == nil)
        #expect(VulkanOptions.fromEnvironment(["KILN_VULKAN_VALIDATION": "1"]).validation != nil)
        #expect(VulkanOptions.fromEnvironment([:]).shortRuns && !VulkanOptions.fromEnvironment(["KILN_VULKAN_RUNS": "long"]).shortRuns)
        #expect(VulkanOptions.fromEnvironment([:]).validation == nil)
    }
}
