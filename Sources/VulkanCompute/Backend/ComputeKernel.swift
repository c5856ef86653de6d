internal import Compute
internal import CVulkan

/// The compute pipelines of one kernel, on the shared `KernelLayout`: its shader's, and where
/// `Shaders/` has a `<kernel>_short.comp` (the same computation in shorter workgroups), that
/// one's too, for tiles too short for the first (``program(for:)``).
// Immutable after init, and Vulkan pipelines may be used from any thread: safe to share.
final class ComputeKernel: @unchecked Sendable {
    /// One pipeline and the workgroup shape its shader declares.
    struct Program {
        let pipeline: VkPipeline
        let groupSize: (x: Int, y: Int)
    }

    /// The kernel, for messages.
    let name: KernelID
    let layout: KernelLayout
    /// The program of the kernel's own shader.
    let main: Program
    /// The program of its `_short` shader, if it has one.
    let short: Program?

    /// Builds the pipelines of `kernel` from its SPIR-V: its short program's too unless `shortRuns`
    /// is false.
    init(_ kernel: KernelID, layout: KernelLayout, shortRuns: Bool = true) throws(ComputeError) {
        let main = try Self.build(try ShaderLibrary.module(kernel), name: kernel.name, layout: layout)
        do {
            short = try (shortRuns ? ShaderLibrary.shortModule(kernel) : nil).map { module throws(ComputeError) in
                try Self.build(module, name: kernel.name + "_short", layout: layout)
            }
        } catch {
            layout.context.functions.destroyPipeline(layout.context.device, main.pipeline, nil)
            throw error
        }
        self.name = kernel
        self.layout = layout
        self.main = main
    }

    /// The program that runs a dispatch over `tile` (x, y, width, height): the short one where
    /// the tile is at most a quarter of the main program's workgroup along the axis where the
    /// short one is shorter, the main one else. A workgroup loads its run and the run's apron
    /// whatever part of the run the tile covers, so runs of 256 over a tile of 7 rows cost each
    /// column 256 invocations and loads for 7 pixels; over a tile of 64 rows, runs of 32 cost
    /// each column two groups of 32 and their two aprons. Taller tiles keep the long runs, whose aprons are shared
    /// by more pixels (blur σ 8 of 24 MP renders 12 × the 16-core CPU on the H200 with them).
    /// Measured on lavapipe (this 2-core machine, 2026-11-27, seventh session, release builds,
    /// one run each; the same bytes written): the blur σ 4 of a 20000 × 1000 crop of the
    /// 400 MPix gradient (strips of 26 rows) took 62–64 s with runs of 256 and 28 s with runs
    /// of 32; for the 16000 × 9000 photo's chain see `DeviceStrips.storedBytesPerStrip`. Not
    /// yet measured on a GPU.
    func program(for tile: SIMD4<Int32>) -> Program {
        guard let short else { return main }
        let alongY = short.groupSize.y < main.groupSize.y
        let extent = Int(alongY ? tile.w : tile.z), mainRun = alongY ? main.groupSize.y : main.groupSize.x
        return extent * 4 <= mainRun ? short : main
    }

    /// Builds the pipeline of `program`.
    private static func build(_ program: ShaderLibrary.Module, name: String,
                              layout: KernelLayout) throws(ComputeError) -> Program {
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
        return Program(pipeline: pipeline, groupSize: program.groupSize)
    }

    deinit {
        let context = layout.context
        context.functions.destroyPipeline(context.device, main.pipeline, nil)
        if let short { context.functions.destroyPipeline(context.device, short.pipeline, nil) }
    }
}
