internal import CVulkan

/// The device-level Vulkan entry points the compute layer uses, resolved
/// through `vkGetDeviceProcAddr` (which skips the loader's dispatch).
// Unchecked: C function pointers (not marked Sendable by the importer), immutable after resolution.
struct DeviceFunctions: @unchecked Sendable {
    let destroyDevice: PFN_vkDestroyDevice
    let deviceWaitIdle: PFN_vkDeviceWaitIdle
    let getDeviceQueue: PFN_vkGetDeviceQueue
    let queueSubmit: PFN_vkQueueSubmit

    let createBuffer: PFN_vkCreateBuffer
    let destroyBuffer: PFN_vkDestroyBuffer
    let getBufferMemoryRequirements: PFN_vkGetBufferMemoryRequirements
    let allocateMemory: PFN_vkAllocateMemory
    let freeMemory: PFN_vkFreeMemory
    let bindBufferMemory: PFN_vkBindBufferMemory
    let mapMemory: PFN_vkMapMemory
    let unmapMemory: PFN_vkUnmapMemory

    let createShaderModule: PFN_vkCreateShaderModule
    let destroyShaderModule: PFN_vkDestroyShaderModule
    let createDescriptorSetLayout: PFN_vkCreateDescriptorSetLayout
    let destroyDescriptorSetLayout: PFN_vkDestroyDescriptorSetLayout
    let createPipelineLayout: PFN_vkCreatePipelineLayout
    let destroyPipelineLayout: PFN_vkDestroyPipelineLayout
    let createComputePipelines: PFN_vkCreateComputePipelines
    let destroyPipeline: PFN_vkDestroyPipeline
    let createDescriptorPool: PFN_vkCreateDescriptorPool
    let destroyDescriptorPool: PFN_vkDestroyDescriptorPool
    let resetDescriptorPool: PFN_vkResetDescriptorPool
    let allocateDescriptorSets: PFN_vkAllocateDescriptorSets
    let updateDescriptorSets: PFN_vkUpdateDescriptorSets

    let createCommandPool: PFN_vkCreateCommandPool
    let destroyCommandPool: PFN_vkDestroyCommandPool
    let resetCommandPool: PFN_vkResetCommandPool
    let allocateCommandBuffers: PFN_vkAllocateCommandBuffers
    let beginCommandBuffer: PFN_vkBeginCommandBuffer
    let endCommandBuffer: PFN_vkEndCommandBuffer
    let cmdBindPipeline: PFN_vkCmdBindPipeline
    let cmdBindDescriptorSets: PFN_vkCmdBindDescriptorSets
    let cmdPushConstants: PFN_vkCmdPushConstants
    let cmdDispatch: PFN_vkCmdDispatch
    let cmdPipelineBarrier: PFN_vkCmdPipelineBarrier
    let cmdCopyBuffer: PFN_vkCmdCopyBuffer

    let createFence: PFN_vkCreateFence
    let destroyFence: PFN_vkDestroyFence
    let resetFences: PFN_vkResetFences
    let waitForFences: PFN_vkWaitForFences

    /// Resolves every entry point; throws when one is missing.
    init(_ resolver: ProcResolver) throws {
        destroyDevice = try resolver.require("vkDestroyDevice")
        deviceWaitIdle = try resolver.require("vkDeviceWaitIdle")
        getDeviceQueue = try resolver.require("vkGetDeviceQueue")
        queueSubmit = try resolver.require("vkQueueSubmit")
        createBuffer = try resolver.require("vkCreateBuffer")
        destroyBuffer = try resolver.require("vkDestroyBuffer")
        getBufferMemoryRequirements = try resolver.require("vkGetBufferMemoryRequirements")
        allocateMemory = try resolver.require("vkAllocateMemory")
        freeMemory = try resolver.require("vkFreeMemory")
        bindBufferMemory = try resolver.require("vkBindBufferMemory")
        mapMemory = try resolver.require("vkMapMemory")
        unmapMemory = try resolver.require("vkUnmapMemory")
        createShaderModule = try resolver.require("vkCreateShaderModule")
        destroyShaderModule = try resolver.require("vkDestroyShaderModule")
        createDescriptorSetLayout = try resolver.require("vkCreateDescriptorSetLayout")
        destroyDescriptorSetLayout = try resolver.require("vkDestroyDescriptorSetLayout")
        createPipelineLayout = try resolver.require("vkCreatePipelineLayout")
        destroyPipelineLayout = try resolver.require("vkDestroyPipelineLayout")
        createComputePipelines = try resolver.require("vkCreateComputePipelines")
        destroyPipeline = try resolver.require("vkDestroyPipeline")
        createDescriptorPool = try resolver.require("vkCreateDescriptorPool")
        destroyDescriptorPool = try resolver.require("vkDestroyDescriptorPool")
        resetDescriptorPool = try resolver.require("vkResetDescriptorPool")
        allocateDescriptorSets = try resolver.require("vkAllocateDescriptorSets")
        updateDescriptorSets = try resolver.require("vkUpdateDescriptorSets")
        createCommandPool = try resolver.require("vkCreateCommandPool")
        destroyCommandPool = try resolver.require("vkDestroyCommandPool")
        resetCommandPool = try resolver.require("vkResetCommandPool")
        allocateCommandBuffers = try resolver.require("vkAllocateCommandBuffers")
        beginCommandBuffer = try resolver.require("vkBeginCommandBuffer")
        endCommandBuffer = try resolver.require("vkEndCommandBuffer")
        cmdBindPipeline = try resolver.require("vkCmdBindPipeline")
        cmdBindDescriptorSets = try resolver.require("vkCmdBindDescriptorSets")
        cmdPushConstants = try resolver.require("vkCmdPushConstants")
        cmdDispatch = try resolver.require("vkCmdDispatch")
        cmdPipelineBarrier = try resolver.require("vkCmdPipelineBarrier")
        cmdCopyBuffer = try resolver.require("vkCmdCopyBuffer")
        createFence = try resolver.require("vkCreateFence")
        destroyFence = try resolver.require("vkDestroyFence")
        resetFences = try resolver.require("vkResetFences")
        waitForFences = try resolver.require("vkWaitForFences")
    }
}
