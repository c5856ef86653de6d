import CVulkan

/// A compute pipeline made from one shader's SPIR-V, on the shared `KernelLayout`.
final class ComputeKernel: @unchecked Sendable {
    /// The shader's name, for messages.
    let name: String
    let layout: KernelLayout
    let pipeline: VkPipeline

    /// Workgroup width declared by `Shaders/pixels.glsl` (`local_size_x`).
    static let workgroupSize = 256

    /// Builds the pipeline from `spirv` (`size` bytes).
    init(name: String, spirv: UnsafePointer<UInt32>, size: Int, layout: KernelLayout) throws(ComputeError) {
        let context = layout.context
        let functions = context.functions
        var moduleInfo = VkShaderModuleCreateInfo()
        moduleInfo.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO
        moduleInfo.codeSize = size
        moduleInfo.pCode = spirv
        var module: VkShaderModule?
        try VulkanCall.check(functions.createShaderModule(context.device, &moduleInfo, nil, &module), "vkCreateShaderModule(\(name))")
        // The module is only needed while the pipeline is created.
        defer { functions.destroyShaderModule(context.device, module, nil) }

        var pipeline: VkPipeline?
        let result = "main".withCString { entry in
            var info = VkComputePipelineCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO
            info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO
            info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT
            info.stage.module = module
            info.stage.pName = entry
            info.layout = layout.pipelineLayout
            return functions.createComputePipelines(context.device, nil, 1, &info, nil, &pipeline)
        }
        try VulkanCall.check(result, "vkCreateComputePipelines(\(name))")
        guard let pipeline else { throw .setupFailed("vkCreateComputePipelines returned no pipeline for \(name)") }
        self.name = name
        self.layout = layout
        self.pipeline = pipeline
    }

    deinit {
        layout.context.functions.destroyPipeline(layout.context.device, pipeline, nil)
    }
}
