@testable import VulkanCompute
import CVulkan
import KilnTestSupport
import Testing

@Suite("Validation layer")
struct ValidationTests {
    /// Guards the other Vulkan tests: if messages were not delivered, their
    /// "no validation message" checks would pass vacuously.
    @Test("an invalid call is reported through the recorder", .requiresVulkan)
    func invalidCallIsRecorded() throws {
        let recorder = ValidationRecorder()
        do {
            let device = try VulkanTesting.vulkanDevice()
            let loader = try VulkanLoader.open(environment: [:]).get()
            let instance = try VulkanInstance(loader: loader, validation: recorder)
            let physical = try #require(try instance.physicalDevices().first { $0.info.index == device.index })
            let context = try VulkanContext(instance: instance, physical: physical,
                                            faults: FaultInjector(deviceLostAtSubmission: nil))
            // size 0 violates VUID-VkBufferCreateInfo-size-00912.
            var info = VkBufferCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO
            info.size = 0
            info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT.rawValue
            var buffer: VkBuffer?
            _ = context.functions.createBuffer(context.device, &info, nil, &buffer)
            if let buffer { context.functions.destroyBuffer(context.device, buffer, nil) }
        }
        let messages = recorder.recorded
        #expect(messages.contains { $0.identifier.contains("VUID-VkBufferCreateInfo-size-00912") && $0.severity == "error" },
                "recorded: \(messages)")
    }
}
