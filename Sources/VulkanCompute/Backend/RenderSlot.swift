internal import Compute
internal import CVulkan

/// The per-thread resources of the Vulkan render stage: a staging buffer,
/// the integer samples and one float buffer per image of the graph on the
/// device, a descriptor pool, and a command sequence. Created once and reused
/// across images; buffers and the pool grow on demand.
// Unchecked: mutable, but owned by one thread at a time: VulkanBackend hands a slot out of `idleSlots` and takes it back.
final class RenderSlot: @unchecked Sendable {
    /// A part of a buffer bound to one binding.
    struct Binding {
        let buffer: VulkanBuffer
        let offset: Int
        let size: Int
    }

    private let context: VulkanContext
    /// Retained: the sets are allocated with its set layout.
    private let layout: KernelLayout
    /// The GPU work of one image.
    let sequence: CommandSequence

    private var descriptorPool: VkDescriptorPool?
    private var poolCapacity = 0
    /// Host-visible: samples going up and coming back, and the graph's constants going up.
    private(set) var staging: VulkanBuffer?
    /// Integer samples on the device, as 32-bit words.
    private var samples: VulkanBuffer?
    /// Float32 RGBA pixels on the device, one buffer per image of the graph.
    private var images: [ImageRef: VulkanBuffer] = [:]
    /// Float32 RGBA pixels of one pass in strip execution: its inputs' windows, then its output.
    private var strips: [Int: VulkanBuffer] = [:]

    init(layout: KernelLayout) throws(ComputeError) {
        self.context = layout.context
        self.layout = layout
        self.sequence = try CommandSequence(context: layout.context)
    }

    deinit {
        // Destroying the pool frees its sets.
        if let descriptorPool {
            context.functions.destroyDescriptorPool(context.device, descriptorPool, nil)
        }
    }

    /// Makes the staging buffer hold at least `bytes` bytes, keeping its first
    /// `preserving` bytes when it grows (a buffer in use by submitted work must not grow).
    func reserveStaging(_ bytes: Int, preserving: Int = 0) throws(ComputeError) {
        let old = staging
        staging = try Self.grown(staging, to: bytes, placement: .staging, context: context)
        if preserving > 0, let old, old !== staging, let from = old.mapped, let to = staging?.mapped {
            to.copyMemory(from: from, byteCount: min(preserving, old.size))
        }
    }

    /// The sample buffer, holding at least `bytes` bytes.
    func samples(bytes: Int) throws(ComputeError) -> VulkanBuffer {
        let buffer = try Self.grown(samples, to: bytes, placement: .deviceLocal, context: context)
        samples = buffer
        return buffer
    }

    /// The float buffer of `image`, holding at least `pixels` pixels.
    func buffer(for image: ImageRef, pixels: Int) throws(ComputeError) -> VulkanBuffer {
        let buffer = try Self.grown(images[image], to: pixels * MemoryLayout<SIMD4<Float>>.size,
                                    placement: .deviceLocal, context: context)
        images[image] = buffer
        return buffer
    }

    /// The `index`th float buffer of strip execution, holding at least `pixels` pixels.
    func stripBuffer(_ index: Int, pixels: Int) throws(ComputeError) -> VulkanBuffer {
        let buffer = try Self.grown(strips[index], to: pixels * MemoryLayout<SIMD4<Float>>.size,
                                    placement: .deviceLocal, context: context)
        strips[index] = buffer
        return buffer
    }

    /// `buffer` when it holds `size` bytes, else a new one (the old one is released first).
    private static func grown(_ buffer: VulkanBuffer?, to size: Int, placement: VulkanBuffer.Placement,
                              context: VulkanContext) throws(ComputeError) -> VulkanBuffer {
        if let buffer, buffer.size >= size { return buffer }
        return try VulkanBuffer(context: context, size: max(size, 16), placement: placement)
    }

    /// One descriptor set per entry of `sets`, each binding its entries to bindings 0, 1, (2).
    /// The sets of the previous image are freed: call once per image, before recording.
    func makeSets(_ sets: [[Binding]]) throws(ComputeError) -> [VkDescriptorSet] {
        let handles = try allocateSets(count: sets.count)
        for (set, bindings) in zip(handles, sets) {
            bind(set, bindings)
        }
        return handles
    }

    /// `count` sets from the pool, reset (or regrown) first.
    private func allocateSets(count: Int) throws(ComputeError) -> [VkDescriptorSet] {
        let functions = context.functions
        if let descriptorPool, poolCapacity >= count {
            try VulkanCall.check(functions.resetDescriptorPool(context.device, descriptorPool, 0), "vkResetDescriptorPool")
        } else {
            if let descriptorPool {
                functions.destroyDescriptorPool(context.device, descriptorPool, nil)
                self.descriptorPool = nil
            }
            // Room to grow, so images of similar graphs reuse the pool.
            let capacity = max(count * 2, 16)
            var poolSize = VkDescriptorPoolSize(type: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                                descriptorCount: UInt32(capacity * KernelLayout.bindingCount))
            var poolInfo = VkDescriptorPoolCreateInfo()
            poolInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO
            poolInfo.maxSets = UInt32(capacity)
            poolInfo.poolSizeCount = 1
            var pool: VkDescriptorPool?
            let created = withUnsafePointer(to: &poolSize) { sizePointer in
                poolInfo.pPoolSizes = sizePointer
                return functions.createDescriptorPool(context.device, &poolInfo, nil, &pool)
            }
            try VulkanCall.check(created, "vkCreateDescriptorPool")
            descriptorPool = pool
            poolCapacity = capacity
        }
        var setLayouts = [VkDescriptorSetLayout?](repeating: layout.setLayout, count: count)
        var sets = [VkDescriptorSet?](repeating: nil, count: count)
        let allocated = setLayouts.withUnsafeMutableBufferPointer { layoutsPointer in
            var allocation = VkDescriptorSetAllocateInfo()
            allocation.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO
            allocation.descriptorPool = descriptorPool
            allocation.descriptorSetCount = UInt32(count)
            allocation.pSetLayouts = UnsafePointer(layoutsPointer.baseAddress)
            return functions.allocateDescriptorSets(context.device, &allocation, &sets)
        }
        try VulkanCall.check(allocated, "vkAllocateDescriptorSets")
        return sets.compactMap { $0 }
    }

    private func bind(_ set: VkDescriptorSet, _ bindings: [Binding]) {
        var infos = bindings.map {
            VkDescriptorBufferInfo(buffer: $0.buffer.handle, offset: VkDeviceSize($0.offset), range: VkDeviceSize($0.size))
        }
        infos.withUnsafeMutableBufferPointer { infoPointer in
            var writes = (0..<infoPointer.count).map { binding in
                var write = VkWriteDescriptorSet()
                write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET
                write.dstSet = set
                write.dstBinding = UInt32(binding)
                write.descriptorCount = 1
                write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
                write.pBufferInfo = UnsafePointer(infoPointer.baseAddress! + binding)
                return write
            }
            context.functions.updateDescriptorSets(context.device, UInt32(writes.count), &writes, 0, nil)
        }
    }
}
