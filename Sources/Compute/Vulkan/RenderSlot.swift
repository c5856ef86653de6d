import CVulkan

/// The per-thread resources of the Vulkan render stage: staging and device
/// buffers, the descriptor sets that bind them to the kernels, and a command
/// sequence. Created once and reused across images; buffers grow on demand.
///
/// A storage-buffer binding may address at most `maxStorageBufferRange` bytes
/// (128 MiB on lavapipe, about 4 GiB on large GPUs), so per-pixel kernels run
/// over chunks of `chunkPixels` pixels, each with its own pair of sets bound
/// to that chunk's part of the buffers.
final class RenderSlot: @unchecked Sendable {
    /// The sets binding one chunk: samples → floats for `unpack`, floats → samples for `pack`.
    struct ChunkSets {
        let unpack: VkDescriptorSet
        let pack: VkDescriptorSet
    }

    private let context: VulkanContext
    /// Retained: the sets are allocated with its set layout.
    private let layout: KernelLayout
    /// Pixels per chunk: a multiple of the workgroup size, so every offset is aligned.
    let chunkPixels: Int
    /// The GPU work of one image.
    let sequence: CommandSequence

    private var descriptorPool: VkDescriptorPool?
    /// One entry per chunk of the current buffers.
    private(set) var chunks: [ChunkSets] = []
    /// Host-visible copy of the samples going up and coming back.
    private(set) var staging: VulkanBuffer?
    /// Integer samples on the device, as 32-bit words.
    private(set) var samples: VulkanBuffer?
    /// Float32 RGBA pixels on the device.
    private(set) var floats: VulkanBuffer?
    private var bytesPerPixel = 0

    init(layout: KernelLayout, chunkPixels: Int) throws(ComputeError) {
        self.context = layout.context
        self.layout = layout
        self.chunkPixels = chunkPixels
        self.sequence = try CommandSequence(context: layout.context)
    }

    deinit {
        // Destroying the pool frees its sets.
        if let descriptorPool {
            context.functions.destroyDescriptorPool(context.device, descriptorPool, nil)
        }
    }

    /// Makes the buffers large enough for `pixels` pixels of `bytesPerPixel`
    /// bytes, reallocating (and rebinding) only when they are too small.
    func reserve(pixels: Int, bytesPerPixel: Int) throws(ComputeError) {
        let sampleBytes = pixels * bytesPerPixel
        let floatBytes = pixels * MemoryLayout<SIMD4<Float>>.size
        if (staging?.size ?? 0) < sampleBytes {
            staging = nil  // free before allocating the larger one
            staging = try VulkanBuffer(context: context, size: sampleBytes, placement: .staging)
        }
        // Also after a failed rebind, which leaves no sets.
        var rebind = bytesPerPixel != self.bytesPerPixel || chunks.isEmpty
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
            try bindChunks(samples: samples, floats: floats, bytesPerPixel: bytesPerPixel)
            self.bytesPerPixel = bytesPerPixel
        }
    }

    /// Replaces the sets with one pair per chunk of the pixels both buffers can hold.
    private func bindChunks(samples: VulkanBuffer, floats: VulkanBuffer, bytesPerPixel: Int) throws(ComputeError) {
        let floatBytesPerPixel = MemoryLayout<SIMD4<Float>>.size
        let capacity = min(floats.size / floatBytesPerPixel, samples.size / bytesPerPixel)
        let chunkCount = (capacity + chunkPixels - 1) / chunkPixels
        let sets = try allocateSets(count: 2 * chunkCount)
        chunks = (0..<chunkCount).map { chunk in
            let first = chunk * chunkPixels
            let count = min(chunkPixels, capacity - first)
            let sampleRange = (buffer: samples, offset: first * bytesPerPixel, size: count * bytesPerPixel)
            let floatRange = (buffer: floats, offset: first * floatBytesPerPixel, size: count * floatBytesPerPixel)
            let pair = ChunkSets(unpack: sets[2 * chunk], pack: sets[2 * chunk + 1])
            bind(pair.unpack, source: sampleRange, destination: floatRange)
            bind(pair.pack, source: floatRange, destination: sampleRange)
            return pair
        }
    }

    /// A fresh pool with `count` sets of the kernel layout (the old pool and its sets are freed).
    private func allocateSets(count: Int) throws(ComputeError) -> [VkDescriptorSet] {
        let functions = context.functions
        if let descriptorPool {
            functions.destroyDescriptorPool(context.device, descriptorPool, nil)
            self.descriptorPool = nil
            chunks = []
        }
        var poolSize = VkDescriptorPoolSize(type: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                            descriptorCount: UInt32(count * KernelLayout.bindingCount))
        var poolInfo = VkDescriptorPoolCreateInfo()
        poolInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO
        poolInfo.maxSets = UInt32(count)
        poolInfo.poolSizeCount = 1
        var pool: VkDescriptorPool?
        let created = withUnsafePointer(to: &poolSize) { sizePointer in
            poolInfo.pPoolSizes = sizePointer
            return functions.createDescriptorPool(context.device, &poolInfo, nil, &pool)
        }
        try VulkanCall.check(created, "vkCreateDescriptorPool")
        descriptorPool = pool

        var setLayouts = [VkDescriptorSetLayout?](repeating: layout.setLayout, count: count)
        var sets = [VkDescriptorSet?](repeating: nil, count: count)
        let allocated = setLayouts.withUnsafeMutableBufferPointer { layoutsPointer in
            var allocation = VkDescriptorSetAllocateInfo()
            allocation.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO
            allocation.descriptorPool = pool
            allocation.descriptorSetCount = UInt32(count)
            allocation.pSetLayouts = UnsafePointer(layoutsPointer.baseAddress)
            return functions.allocateDescriptorSets(context.device, &allocation, &sets)
        }
        try VulkanCall.check(allocated, "vkAllocateDescriptorSets")
        return sets.compactMap { $0 }
    }

    private func bind(_ set: VkDescriptorSet,
                      source: (buffer: VulkanBuffer, offset: Int, size: Int),
                      destination: (buffer: VulkanBuffer, offset: Int, size: Int)) {
        var infos = [source, destination].map {
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
