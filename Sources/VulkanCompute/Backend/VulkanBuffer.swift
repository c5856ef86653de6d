internal import Compute
internal import CVulkan

/// A `VkBuffer` with its own memory: either device-local (for kernels) or
/// host-visible and persistently mapped (staging for uploads and downloads).
// Unchecked: immutable handles and mapping after init; its memory is written by one slot's thread at a time.
final class VulkanBuffer: @unchecked Sendable {
    /// Where the memory lives.
    enum Placement {
        /// Fastest for shaders; filled and read through copies.
        case deviceLocal
        /// Mapped for the CPU (coherent, cached when possible), used as the copy source and target.
        case staging
    }

    let context: VulkanContext
    let handle: VkBuffer
    /// The usable size in bytes.
    let size: Int
    private let memory: VkDeviceMemory
    /// The mapping of a staging buffer; nil for device-local buffers.
    let mapped: UnsafeMutableRawPointer?

    /// Allocates a buffer of `size` bytes (> 0) for storage-buffer access and transfers.
    init(context: VulkanContext, size: Int, placement: Placement) throws(ComputeError) {
        let functions = context.functions
        let device = context.device
        var info = VkBufferCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO
        info.size = VkDeviceSize(size)
        info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT.rawValue
            | VK_BUFFER_USAGE_TRANSFER_SRC_BIT.rawValue | VK_BUFFER_USAGE_TRANSFER_DST_BIT.rawValue
        info.sharingMode = VK_SHARING_MODE_EXCLUSIVE
        var buffer: VkBuffer?
        try VulkanCall.check(functions.createBuffer(device, &info, nil, &buffer), "vkCreateBuffer")
        guard let buffer else { throw .setupFailed("vkCreateBuffer returned no buffer") }

        var requirements = VkMemoryRequirements()
        functions.getBufferMemoryRequirements(device, buffer, &requirements)
        var allocated: VkDeviceMemory?
        var mapped: UnsafeMutableRawPointer?
        let memory: VkDeviceMemory
        do throws(ComputeError) {
            let (required, preferred) = switch placement {
            case .deviceLocal:
                (UInt32(0), VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT.rawValue)
            case .staging:
                (VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT.rawValue | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT.rawValue,
                 VK_MEMORY_PROPERTY_HOST_CACHED_BIT.rawValue)
            }
            var allocation = VkMemoryAllocateInfo()
            allocation.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO
            allocation.allocationSize = requirements.size
            allocation.memoryTypeIndex = try context.memoryType(
                typeBits: requirements.memoryTypeBits, required: required, preferred: preferred)
            var result = functions.allocateMemory(device, &allocation, nil, &allocated)
            // Device memory kept for later (windows of earlier images) gives way to what is needed now.
            if result == VK_ERROR_OUT_OF_DEVICE_MEMORY, placement == .deviceLocal, context.releaseKeptMemory() {
                result = functions.allocateMemory(device, &allocation, nil, &allocated)
            }
            try VulkanCall.check(result, "vkAllocateMemory")
            guard let allocated else { throw .setupFailed("vkAllocateMemory returned no memory") }
            memory = allocated
            try VulkanCall.check(functions.bindBufferMemory(device, buffer, memory, 0), "vkBindBufferMemory")
            if placement == .staging {
                try VulkanCall.check(functions.mapMemory(device, memory, 0, kiln_vk_whole_size(), 0, &mapped), "vkMapMemory")
            }
        } catch {
            if let allocated { functions.freeMemory(device, allocated, nil) }
            functions.destroyBuffer(device, buffer, nil)
            throw error
        }
        self.context = context
        self.handle = buffer
        self.size = size
        self.memory = memory
        self.mapped = mapped
    }

    deinit {
        // Freeing memory unmaps it implicitly.
        context.functions.destroyBuffer(context.device, handle, nil)
        context.functions.freeMemory(context.device, memory, nil)
    }
}
