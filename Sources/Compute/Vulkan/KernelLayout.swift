import CVulkan

/// The interface every per-pixel kernel shares (`Shaders/pixels.glsl`): set 0
/// with a source (binding 0) and a destination (binding 1) storage buffer, and
/// `KernelParameters` as push constants.
final class KernelLayout: @unchecked Sendable {
    let context: VulkanContext
    let setLayout: VkDescriptorSetLayout
    let pipelineLayout: VkPipelineLayout

    /// Storage buffers per set: source and destination.
    static let bindingCount = 2

    init(context: VulkanContext) throws(ComputeError) {
        let functions = context.functions
        let device = context.device
        var bindings = (0..<Self.bindingCount).map { binding in
            var entry = VkDescriptorSetLayoutBinding()
            entry.binding = UInt32(binding)
            entry.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
            entry.descriptorCount = 1
            entry.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT.rawValue
            return entry
        }
        var setLayout: VkDescriptorSetLayout?
        let created = bindings.withUnsafeMutableBufferPointer { buffer in
            var info = VkDescriptorSetLayoutCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO
            info.bindingCount = UInt32(buffer.count)
            info.pBindings = UnsafePointer(buffer.baseAddress)
            return functions.createDescriptorSetLayout(device, &info, nil, &setLayout)
        }
        try VulkanCall.check(created, "vkCreateDescriptorSetLayout")
        guard let setLayout else { throw .setupFailed("vkCreateDescriptorSetLayout returned no layout") }

        var range = VkPushConstantRange()
        range.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT.rawValue
        range.size = UInt32(MemoryLayout<KernelParameters>.size)
        var setLayoutHandle: VkDescriptorSetLayout? = setLayout
        var pipelineLayout: VkPipelineLayout?
        var info = VkPipelineLayoutCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO
        let result = withUnsafePointer(to: &setLayoutHandle) { setPointer in
            withUnsafePointer(to: &range) { rangePointer in
                info.setLayoutCount = 1
                info.pSetLayouts = setPointer
                info.pushConstantRangeCount = 1
                info.pPushConstantRanges = rangePointer
                return functions.createPipelineLayout(device, &info, nil, &pipelineLayout)
            }
        }
        guard result == VK_SUCCESS, let pipelineLayout else {
            functions.destroyDescriptorSetLayout(device, setLayout, nil)
            try VulkanCall.check(result, "vkCreatePipelineLayout")
            throw .setupFailed("vkCreatePipelineLayout returned no layout")
        }
        self.context = context
        self.setLayout = setLayout
        self.pipelineLayout = pipelineLayout
    }

    deinit {
        context.functions.destroyPipelineLayout(context.device, pipelineLayout, nil)
        context.functions.destroyDescriptorSetLayout(context.device, setLayout, nil)
    }
}

/// The push constants of `Shaders/pixels.glsl` (std430: three 4-byte fields).
struct KernelParameters {
    /// Pixels in the image.
    var pixelCount: UInt32
    /// 1 for 16 bits per channel, 0 for 8.
    var sixteenBit: UInt32
    /// The kernel's host-computed factor (see `UnpackKernel.scale`, `PackKernel.scale`).
    var scale: Float
}
