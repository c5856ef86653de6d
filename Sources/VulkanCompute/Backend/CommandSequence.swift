internal import Compute
internal import CVulkan

/// Recorded GPU work: copies, dispatches and the barriers between them, in
/// one command buffer that is re-recorded for each image and submitted with a
/// fence. One sequence is used by one thread at a time.
// Unchecked: belongs to one RenderSlot, so one thread at a time records and runs it.
final class CommandSequence: @unchecked Sendable {
    let context: VulkanContext
    private let pool: VkCommandPool
    private let commandBuffer: VkCommandBuffer
    private let fence: VkFence

    init(context: VulkanContext) throws(ComputeError) {
        let functions = context.functions
        let device = context.device
        var poolInfo = VkCommandPoolCreateInfo()
        poolInfo.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO
        poolInfo.queueFamilyIndex = context.queueFamily
        var pool: VkCommandPool?
        try VulkanCall.check(functions.createCommandPool(device, &poolInfo, nil, &pool), "vkCreateCommandPool")
        guard let pool else { throw .setupFailed("vkCreateCommandPool returned no pool") }

        var allocation = VkCommandBufferAllocateInfo()
        allocation.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO
        allocation.commandPool = pool
        allocation.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY
        allocation.commandBufferCount = 1
        var commandBuffer: VkCommandBuffer?
        var fenceInfo = VkFenceCreateInfo()
        fenceInfo.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO
        var fence: VkFence?
        do throws(ComputeError) {
            try VulkanCall.check(functions.allocateCommandBuffers(device, &allocation, &commandBuffer), "vkAllocateCommandBuffers")
            try VulkanCall.check(functions.createFence(device, &fenceInfo, nil, &fence), "vkCreateFence")
        } catch {
            functions.destroyCommandPool(device, pool, nil)
            throw error
        }
        guard let commandBuffer, let fence else {
            functions.destroyCommandPool(device, pool, nil)
            throw .setupFailed("command buffer or fence missing")
        }
        self.context = context
        self.pool = pool
        self.commandBuffer = commandBuffer
        self.fence = fence
    }

    deinit {
        context.functions.destroyFence(context.device, fence, nil)
        context.functions.destroyCommandPool(context.device, pool, nil)
    }

    /// Replaces the recorded work with what `body` records.
    func record(_ body: (Recorder) -> Void) throws(ComputeError) {
        let functions = context.functions
        try VulkanCall.check(functions.resetCommandPool(context.device, pool, 0), "vkResetCommandPool")
        var begin = VkCommandBufferBeginInfo()
        begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO
        begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT.rawValue
        try VulkanCall.check(functions.beginCommandBuffer(commandBuffer, &begin), "vkBeginCommandBuffer")
        body(Recorder(functions: functions, commandBuffer: commandBuffer))
        try VulkanCall.check(functions.endCommandBuffer(commandBuffer), "vkEndCommandBuffer")
    }

    /// Submits the recorded work and waits until the device has finished it.
    func run() throws(ComputeError) {
        try submit()
        try wait()
    }

    /// Submits the recorded work; ``wait()`` waits for it.
    func submit() throws(ComputeError) {
        var fence: VkFence? = self.fence
        try VulkanCall.check(context.functions.resetFences(context.device, 1, &fence), "vkResetFences")
        try context.submit(commandBuffer, fence: self.fence)
    }

    /// Waits until the device has finished the work submitted last.
    func wait() throws(ComputeError) {
        try context.wait(for: fence)
    }

    /// Records commands into a sequence's command buffer.
    struct Recorder {
        fileprivate let functions: DeviceFunctions
        fileprivate let commandBuffer: VkCommandBuffer

        /// Runs `kernel` over `parameters.pixelCount` pixels with `set` bound.
        func dispatch(_ kernel: ComputeKernel, set: VkDescriptorSet, parameters: KernelParameters) {
            var set: VkDescriptorSet? = set
            var parameters = parameters
            let layout = kernel.layout.pipelineLayout
            functions.cmdBindPipeline(commandBuffer, VK_PIPELINE_BIND_POINT_COMPUTE, kernel.main.pipeline)
            functions.cmdBindDescriptorSets(commandBuffer, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nil)
            functions.cmdPushConstants(commandBuffer, layout, VK_SHADER_STAGE_COMPUTE_BIT.rawValue, 0,
                                       UInt32(MemoryLayout<KernelParameters>.size), &parameters)
            let grid = Self.grid(pixels: Int(parameters.pixelCount), groupWidth: kernel.main.groupSize.x)
            functions.cmdDispatch(commandBuffer, grid.x, grid.y, 1)
        }

        /// Runs `kernel` over the output rectangle in `constants.tile` with `set` bound.
        func dispatch(_ kernel: ComputeKernel, set: VkDescriptorSet, constants: PassConstants) {
            var set: VkDescriptorSet? = set
            var constants = constants
            let layout = kernel.layout.pipelineLayout
            let program = kernel.program(for: constants.tile)
            functions.cmdBindPipeline(commandBuffer, VK_PIPELINE_BIND_POINT_COMPUTE, program.pipeline)
            functions.cmdBindDescriptorSets(commandBuffer, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nil)
            functions.cmdPushConstants(commandBuffer, layout, VK_SHADER_STAGE_COMPUTE_BIT.rawValue, 0,
                                       UInt32(MemoryLayout<PassConstants>.size), &constants)
            let x = (Int(constants.tile.z) + program.groupSize.x - 1) / program.groupSize.x
            let y = (Int(constants.tile.w) + program.groupSize.y - 1) / program.groupSize.y
            functions.cmdDispatch(commandBuffer, UInt32(x), UInt32(y), 1)
        }

        /// Copies `size` bytes from `source` at `sourceOffset` to `destination` at `destinationOffset`.
        func copy(from source: VulkanBuffer, offset sourceOffset: Int = 0, to destination: VulkanBuffer,
                  offset destinationOffset: Int = 0, size: Int) {
            var region = VkBufferCopy(srcOffset: VkDeviceSize(sourceOffset), dstOffset: VkDeviceSize(destinationOffset),
                                      size: VkDeviceSize(size))
            functions.cmdCopyBuffer(commandBuffer, source.handle, destination.handle, 1, &region)
        }

        /// Orders everything recorded (and submitted) before against everything after:
        /// copies and dispatches, reads and writes.
        func fullBarrier() {
            var barrier = VkMemoryBarrier()
            barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER
            barrier.srcAccessMask = Stage.transfer.writeAccess | Stage.compute.writeAccess
            barrier.dstAccessMask = Stage.transfer.readAccess | Stage.compute.readAccess | Stage.transfer.writeAccess
            let stages = Stage.transfer.stage | Stage.compute.stage
            functions.cmdPipelineBarrier(commandBuffer, stages, stages, 0, 1, &barrier, 0, nil, 0, nil)
        }

        /// Makes `source` work (writes) visible to `destination` work.
        func barrier(_ source: Stage, _ destination: Stage) {
            var barrier = VkMemoryBarrier()
            barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER
            barrier.srcAccessMask = source.writeAccess
            barrier.dstAccessMask = destination.readAccess
            functions.cmdPipelineBarrier(commandBuffer, source.stage, destination.stage, 0, 1, &barrier, 0, nil, 0, nil)
        }

        /// Workgroups of `groupWidth` for `pixels`, folded into 2-D so x stays ≤ 65535 (the
        /// guaranteed limit); `Shaders/pixels.glsl` unfolds the index.
        static func grid(pixels: Int, groupWidth: Int) -> (x: UInt32, y: UInt32) {
            let groups = max(1, (pixels + groupWidth - 1) / groupWidth)
            let x = min(groups, 65535)
            return (UInt32(x), UInt32((groups + x - 1) / x))
        }
    }

    /// Where memory is written or read, for barriers.
    enum Stage {
        case transfer, compute, host

        var stage: UInt32 {
            switch self {
            case .transfer: VK_PIPELINE_STAGE_TRANSFER_BIT.rawValue
            case .compute: VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT.rawValue
            case .host: VK_PIPELINE_STAGE_HOST_BIT.rawValue
            }
        }
        var writeAccess: UInt32 {
            switch self {
            case .transfer: VK_ACCESS_TRANSFER_WRITE_BIT.rawValue
            case .compute: VK_ACCESS_SHADER_WRITE_BIT.rawValue
            case .host: VK_ACCESS_HOST_WRITE_BIT.rawValue
            }
        }
        var readAccess: UInt32 {
            switch self {
            case .transfer: VK_ACCESS_TRANSFER_READ_BIT.rawValue
            case .compute: VK_ACCESS_SHADER_READ_BIT.rawValue | VK_ACCESS_SHADER_WRITE_BIT.rawValue
            case .host: VK_ACCESS_HOST_READ_BIT.rawValue
            }
        }
    }
}
