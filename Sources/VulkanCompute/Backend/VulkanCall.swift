internal import Compute
internal import CVulkan

/// Maps `VkResult`s of the compute layer to `ComputeError`.
enum VulkanCall {
    /// Throws unless `result` is a success code; `VK_ERROR_DEVICE_LOST` becomes
    /// `.deviceLost`, which the export layer answers by moving to the CPU.
    static func check(_ result: VkResult, _ call: String) throws(ComputeError) {
        guard result.rawValue < 0 else { return }
        if result == VK_ERROR_DEVICE_LOST { throw .deviceLost(call: call) }
        throw .vulkan(call: call, result: VulkanResult.name(result))
    }
}
