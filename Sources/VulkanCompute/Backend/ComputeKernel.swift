internal import Compute
internal import CVulkan

/// A compute pipeline made from one shader's SPIR-V, on the shared `KernelLayout`.
// Immutable after init, and Vulkan pipelines may be used from any thread: safe to share.
final class ComputeKernel: @unchecked Sendable {
    /// The kernel, for messages.
    let name: KernelID
    let layout: KernelLayout
    let pipeline: VkPipeline
    /// The workgroup shape the shader declares.
    let groupSize: (x: Int, y: Int)

    /// Builds the pipeline of `kernel` from its SPIR-V.
    init(_ kernel: KernelID, layout: KernelLayout) throws(ComputeError) {
        let program = try ShaderLibrary.module(kernel)
        let name = kernel
        let context = layout.context
        let functions = context.functions
        var moduleInfo = VkShaderModuleCreateInfo()
        moduleInfo.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO
        moduleInfo.codeSize = program.size
        moduleInfo.pCode = program.words
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
        self.groupSize = program.groupSize
    }

    deinit {
        layout.context.functions.destroyPipeline(layout.context.device, pipeline, nil)
    }
}
