import CVulkan

/// The per-thread resources of the Vulkan render stage: staging and device
/// buffers, the descriptor sets that bind them to the kernels, and a command
/// sequence. Created once and reused across images; buffers grow on demand.
final class RenderSlot: @unchecked Sendable {
    private let context: VulkanContext
    /// Retained: the sets were allocated with its set layout.
    private let layout: KernelLayout
    private let descriptorPool: VkDescriptorPool
    /// Binds samples (source) → floats (destination), for `unpack`.
    let unpackSet: VkDescriptorSet
    /// Binds floats (source) → samples (destination), for `pack`.
    let packSet: VkDescriptorSet
    /// The GPU work of one image.
    let sequence: CommandSequence

    /// Host-visible copy of the samples going up and coming back.
    private(set) var staging: VulkanBuffer?
    /// Integer samples on the device, as 32-bit words.
    private(set) var samples: VulkanBuffer?
    /// Float32 RGBA pixels on the device.
    private(set) var floats: VulkanBuffer?

    init(layout: KernelLayout) throws(ComputeError) {
        let context = layout.context
        let functions = context.functions
        var poolSize = VkDescriptorPoolSize(type: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                            descriptorCount: UInt32(2 * KernelLayout.bindingCount))
        var poolInfo = VkDescriptorPoolCreateInfo()
        poolInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO
        poolInfo.maxSets = 2
        poolInfo.poolSizeCount = 1
        var pool: VkDescriptorPool?
        let created = withUnsafePointer(to: &poolSize) { sizePointer in
            poolInfo.pPoolSizes = sizePointer
            return functions.createDescriptorPool(context.device, &poolInfo, nil, &pool)
        }
        try VulkanCall.check(created, "vkCreateDescriptorPool")
        guard let pool else { throw .setupFailed("vkCreateDescriptorPool returned no pool") }

        var setLayouts: [VkDescriptorSetLayout?] = [layout.setLayout, layout.setLayout]
        var sets = [VkDescriptorSet?](repeating: nil, count: 2)
        let allocated = setLayouts.withUnsafeMutableBufferPointer { layoutsPointer in
            var allocation = VkDescriptorSetAllocateInfo()
            allocation.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO
            allocation.descriptorPool = pool
            allocation.descriptorSetCount = 2
            allocation.pSetLayouts = UnsafePointer(layoutsPointer.baseAddress)
            return functions.allocateDescriptorSets(context.device, &allocation, &sets)
        }
        let sequence: CommandSequence
        do throws(ComputeError) {
            try VulkanCall.check(allocated, "vkAllocateDescriptorSets")
            sequence = try CommandSequence(context: context)
        } catch {
            functions.destroyDescriptorPool(context.device, pool, nil)
            throw error
        }
        guard let unpackSet = sets[0], let packSet = sets[1] else {
            functions.destroyDescriptorPool(context.device, pool, nil)
            throw .setupFailed("vkAllocateDescriptorSets returned no sets")
        }
        self.context = context
        self.layout = layout
        self.descriptorPool = pool
        self.unpackSet = unpackSet
        self.packSet = packSet
        self.sequence = sequence
    }

    deinit {
        // Frees the sets too.
        context.functions.destroyDescriptorPool(context.device, descriptorPool, nil)
    }

    /// Makes the buffers large enough for `pixels` pixels of `bytesPerPixel`
    /// samples, reallocating (and rebinding) only the ones that are too small.
    func reserve(pixels: Int, bytesPerPixel: Int) throws(ComputeError) {
        let sampleBytes = pixels * bytesPerPixel
        let floatBytes = pixels * MemoryLayout<SIMD4<Float>>.size
        var rebind = false
        if (staging?.size ?? 0) < sampleBytes {
            staging = nil  // free before allocating the larger one
            staging = try VulkanBuffer(context: context, size: sampleBytes, placement: .staging)
        }
        if (samples?.size ?? 0) < sampleBytes {
            samples = nil
            samples = try VulkanBuffer(context: context, size: sampleBytes, placement: .deviceLocal)
            rebind = true
        }
        if (floats?.size ?? 0) < floatBytes {
            floats = nil
            floats = try VulkanBuffer(context: context, size: floatBytes, placement: .deviceLocal)
            rebind = true
        }
        if rebind, let samples, let floats {
            bind(unpackSet, source: samples, destination: floats)
            bind(packSet, source: floats, destination: samples)
        }
    }

    private func bind(_ set: VkDescriptorSet, source: VulkanBuffer, destination: VulkanBuffer) {
        var infos = [source, destination].map {
            VkDescriptorBufferInfo(buffer: $0.handle, offset: 0, range: kiln_vk_whole_size())
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
