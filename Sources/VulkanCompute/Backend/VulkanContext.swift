internal import Compute
internal import CVulkan
import Locking

/// A logical device with one compute queue: what every buffer, kernel and
/// sequence of a Vulkan backend is made from.
///
/// Thread-safe: creating objects on a `VkDevice` needs no locking, and the
/// queue (which Vulkan requires to be externally synchronized) is only used
/// through `submit`, which holds a lock.
// Unchecked: immutable handles after init; VkDevice object creation needs no lock; the queue is used only in `submit`, under `queueState`.
final class VulkanContext: @unchecked Sendable {
    /// The instance; kept alive as long as the device.
    let instance: VulkanInstance
    /// The physical device.
    let physical: PhysicalDevice
    /// The logical device.
    let device: VkDevice
    /// Device-level entry points.
    let functions: DeviceFunctions
    /// The queue family of `queue`.
    let queueFamily: UInt32
    private let queue: VkQueue
    private let faults: FaultInjector

    /// Submissions made so far, and whether the device was lost (then it stays lost).
    private struct QueueState {
        var submissions = 0
        var lost = false
    }
    private let queueState = Locked(QueueState())
    /// What frees device memory kept for later (``onOutOfMemory(_:)``).
    private let releaseKept = Locked<(@Sendable () -> Bool)?>(nil)

    /// Creates a logical device on `physical` (which must have a compute queue).
    init(instance: VulkanInstance, physical: PhysicalDevice, faults: FaultInjector) throws(ComputeError) {
        guard let family = physical.computeQueueFamily else {
            throw .setupFailed("\(physical.info.name) has no compute queue")
        }
        var priority: Float = 1
        var device: VkDevice?
        let result = withUnsafePointer(to: &priority) { priorityPointer in
            var queueInfo = VkDeviceQueueCreateInfo()
            queueInfo.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO
            queueInfo.queueFamilyIndex = family
            queueInfo.queueCount = 1
            queueInfo.pQueuePriorities = priorityPointer
            return withUnsafePointer(to: &queueInfo) { queuePointer in
                var info = VkDeviceCreateInfo()
                info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO
                info.queueCreateInfoCount = 1
                info.pQueueCreateInfos = queuePointer
                return instance.functions.createDevice(physical.handle, &info, nil, &device)
            }
        }
        try VulkanCall.check(result, "vkCreateDevice")
        guard let device else { throw .setupFailed("vkCreateDevice returned no device") }

        let getDeviceProcAddr = instance.functions.getDeviceProcAddr
        let functions: DeviceFunctions
        do {
            functions = try DeviceFunctions(ProcResolver { name in getDeviceProcAddr(device, name) })
        } catch {
            let destroy: PFN_vkDestroyDevice? = ProcResolver { getDeviceProcAddr(device, $0) }.optional("vkDestroyDevice")
            destroy?(device, nil)
            throw .setupFailed("\(error)")
        }
        var queue: VkQueue?
        functions.getDeviceQueue(device, family, 0, &queue)
        guard let queue else {
            functions.destroyDevice(device, nil)
            throw .setupFailed("vkGetDeviceQueue returned no queue")
        }
        self.instance = instance
        self.physical = physical
        self.device = device
        self.functions = functions
        self.queueFamily = family
        self.queue = queue
        self.faults = faults
    }

    deinit {
        // Every object made from the device is gone (they retain the context); wait for
        // in-flight work anyway so destroying the device is valid. A lost device returns an error: ignored.
        _ = functions.deviceWaitIdle(device)
        functions.destroyDevice(device, nil)
    }

    /// Sets what a device-local allocation that finds the device's memory full
    /// calls before it tries once more: it frees memory kept for later (the
    /// backend's kept window buffers) and says whether it freed any.
    func onOutOfMemory(_ release: @escaping @Sendable () -> Bool) {
        releaseKept.withLock { $0 = release }
    }

    /// Frees device memory kept for later; true when some was (``onOutOfMemory(_:)``).
    func releaseKeptMemory() -> Bool {
        releaseKept.withLock { $0 }?() ?? false
    }

    /// Command buffers submitted so far (the injected failures included).
    var submissions: Int { queueState.withLock { $0.submissions } }

    /// Submits `commandBuffer`, signalling `fence` when done. Serialized; after a device loss
    /// (real or injected) every submission fails with `.deviceLost`.
    func submit(_ commandBuffer: VkCommandBuffer, fence: VkFence) throws(ComputeError) {
        let result: VkResult = queueState.withLock { state in
            guard !state.lost else { return VK_ERROR_DEVICE_LOST }
            state.submissions += 1
            // The injected fault takes the same path as a real VK_ERROR_DEVICE_LOST below.
            let result = faults.failsSubmission(state.submissions)
                ? VK_ERROR_DEVICE_LOST
                : submitLocked(commandBuffer, fence: fence)
            if result == VK_ERROR_DEVICE_LOST { state.lost = true }
            return result
        }
        try VulkanCall.check(result, "vkQueueSubmit")
    }

    private func submitLocked(_ commandBuffer: VkCommandBuffer, fence: VkFence) -> VkResult {
        var buffer: VkCommandBuffer? = commandBuffer
        return withUnsafePointer(to: &buffer) { bufferPointer in
            var info = VkSubmitInfo()
            info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO
            info.commandBufferCount = 1
            info.pCommandBuffers = bufferPointer
            return functions.queueSubmit(queue, 1, &info, fence)
        }
    }

    /// Waits for `fence`; a device lost while waiting is reported and remembered.
    func wait(for fence: VkFence) throws(ComputeError) {
        var fence: VkFence? = fence
        let result = functions.waitForFences(device, 1, &fence, VkBool32(VK_TRUE), UInt64.max)
        if result == VK_ERROR_DEVICE_LOST {
            queueState.withLock { $0.lost = true }
        }
        try VulkanCall.check(result, "vkWaitForFences")
    }

    /// The index of a memory type allowed by `typeBits` with all `required` flags,
    /// preferring one that also has the `preferred` flags.
    func memoryType(typeBits: UInt32, required: UInt32, preferred: UInt32) throws(ComputeError) -> UInt32 {
        let memory = physical.memoryProperties
        // A homogeneous tuple (a C array) is laid out as its elements: read them with typed loads.
        let types = withUnsafeBytes(of: memory.memoryTypes) { raw in
            (0..<Int(memory.memoryTypeCount)).map { raw.load(fromByteOffset: $0 * MemoryLayout<VkMemoryType>.stride, as: VkMemoryType.self) }
        }
        let allowed = types.indices.filter { typeBits & (1 << UInt32($0)) != 0 && types[$0].propertyFlags & required == required }
        let chosen = allowed.first { types[$0].propertyFlags & preferred == preferred } ?? allowed.first
        guard let chosen else { throw .setupFailed("no memory type with flags \(required)") }
        return UInt32(chosen)
    }
}
