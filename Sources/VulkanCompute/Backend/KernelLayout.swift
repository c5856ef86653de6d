internal import Compute
internal import CVulkan

/// The interface every kernel shares: set 0 with a source (binding 0), a
/// destination (binding 1) and an auxiliary source (binding 2) storage buffer,
/// and up to 128 bytes of push constants — `KernelParameters` for unpack and
/// pack (`Shaders/pixels.glsl`), `PassConstants` for the passes (`Shaders/pass.glsl`).
// Unchecked: immutable Vulkan handles after init; layouts may be used from any thread.
final class KernelLayout: @unchecked Sendable {
    let context: VulkanContext
    let setLayout: VkDescriptorSetLayout
    let pipelineLayout: VkPipelineLayout

    /// Storage buffers per set: source, destination, auxiliary source.
    static let bindingCount = 3

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
        range.size = UInt32(MemoryLayout<PassConstants>.size)
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

/// The push constants of `Shaders/pixels.glsl` (std430: four 4-byte fields).
struct KernelParameters {
    /// Pixels in the image.
    var pixelCount: UInt32
    /// 1 for 16 bits per channel, 0 for 8.
    var sixteenBit: UInt32
    /// The kernel's host-computed factor (see `UnpackKernel.scale`, `PackKernel.scale`).
    var scale: Float
    /// The float pixel of index 0 within the float binding (which starts aligned, at or before it).
    var first: UInt32 = 0
}

/// The push constants of `Shaders/pass.glsl` (std430, 128 bytes: the minimum
/// `maxPushConstantsSize` every device supports).
struct PassConstants {
    /// x, y, width, height of the output rectangle this dispatch writes.
    var tile: SIMD4<Int32>
    /// Width and height of the source (binding 0), then of the destination.
    var images: SIMD4<Int32>
    /// The pixel index bound first at bindings 0, 1 and 2, and the auxiliary input's width.
    var bases: SIMD4<Int32>
    /// The pass's integer parameters.
    var ints: (SIMD4<Int32>, SIMD4<Int32>)
    /// The pass's float parameters.
    var floats: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)
}
