public import Compute
internal import CVulkan
package import ImageCore
import Locking
import Synchronization

/// The Vulkan path: the render stage as compute shaders on one device.
///
/// Everything is created once per job: the context and layout at init, each
/// kernel's pipeline the first time a graph uses it, and one `RenderSlot`
/// (buffers, descriptor sets, command buffer) per thread rendering at the same
/// time, kept for the next image. Both ways the schedule runs a graph go
/// through one path, ``submit(_:in:)``: what goes up, the dispatches, what
/// comes down. A small graph runs whole (``renderWhole(_:graph:)``: one
/// upload, `unpack`, every pass and `pack` on the device, one download); a
/// larger one in strips with every window on the device (`DeviceStrips`,
/// ``devicePlace(for:depth:sourceHeld:)``), or, where an image is read backwards, a
/// chunk of one pass at a time through host memory (``run(_:inputs:sizes:output:)``).
public final class VulkanBackend: PassBackend {
    public let label: String
    public var kind: BackendKind { .vulkan }

    let context: VulkanContext
    private let layout: KernelLayout
    let unpack: ComputeKernel
    let pack: ComputeKernel
    private let kernels = Locked<[KernelID: ComputeKernel]>([:])
    private let builds = Atomic<Int>(0)
    private let idleSlots = Locked<[RenderSlot]>([])
    /// Device-local window buffers kept from images before (``windowBuffer(bytes:)``).
    private let idleWindows = Locked<[VulkanBuffer]>([])
    private let windowAllocations = Atomic<Int>(0)
    private let bytesUp = Atomic<Int>(0)
    private let bytesDown = Atomic<Int>(0)
    /// Pixels per binding: what one storage-buffer binding of float pixels can address.
    let chunkPixels: Int
    /// Whether every memory type the device has is also the host's (lavapipe, integrated
    /// GPUs): then shaders read and write staging directly, and no copy is recorded.
    let sharedMemory: Bool
    private let stripsOnDevice: Bool
    /// Whether kernels with a short program build it (``VulkanOptions/shortRuns``).
    private let shortRuns: Bool

    /// Float bytes of a graph at most that run whole on the device (one upload, one download).
    package var wholeGraphBytes: Int { 64 << 20 }

    /// ``VulkanOptions/submissionTaps``.
    package var submissionTaps: Int? { submissionBound }
    private let submissionBound: Int

    /// Sets up `device` (an entry of a `DeviceReport`) for rendering.
    public init(device: DeviceInfo, options: VulkanOptions = .fromEnvironment()) throws {
        let instance: VulkanInstance
        let physical: PhysicalDevice
        do {
            // The instance that discovered the device, where it is the same loader's: a second
            // instance cost NVIDIA's driver on the H200 64 ms to make and 19 ms to destroy the first.
            if options.validation == nil, let discovered = DeviceDiscovery.instance(for: options.environment) {
                instance = discovered
            } else {
                let loader: VulkanLoader
                switch VulkanLoader.open(environment: options.environment) {
                case .success(let opened): loader = opened
                case .failure(let failure): throw ComputeError.unavailable(reason: "no Vulkan loader: \(failure.message)")
                }
                instance = try VulkanInstance(loader: loader, validation: options.validation)
            }
            // Indices follow the loader's order, the same as in the report that named the device.
            guard let match = try instance.physicalDevices().first(where: { $0.info.index == device.index && $0.info.name == device.name }) else {
                throw ComputeError.unavailable(reason: "Vulkan device vulkan:\(device.index) (\(device.name)) is gone")
            }
            physical = match
        } catch let error as VulkanError {
            throw ComputeError.setupFailed("\(error)")
        }
        context = try VulkanContext(instance: instance, physical: physical,
                                    faults: FaultInjector(deviceLostAtSubmission: options.deviceLostAtSubmission))
        layout = try KernelLayout(context: context)
        unpack = try ComputeKernel(.unpack, layout: layout)
        pack = try ComputeKernel(.pack, layout: layout)
        builds.store(2, ordering: .relaxed)
        label = "Vulkan · \(device.name)"
        let workgroup = unpack.main.groupSize.x
        let addressable = Int(physical.limits.maxStorageBufferRange) / MemoryLayout<SIMD4<Float>>.size
        let wanted = min(addressable, options.maxPixelsPerDispatch ?? .max)
        // A multiple of the workgroup size keeps every chunk offset aligned (≥ 1 KiB, above any
        // minStorageBufferOffsetAlignment).
        chunkPixels = max(workgroup, wanted / workgroup * workgroup)
        sharedMemory = !options.copiesThroughStaging && Self.hasSharedMemory(physical.memoryProperties)
        stripsOnDevice = options.stripsOnDevice
        shortRuns = options.shortRuns
        submissionBound = max(1, options.submissionTaps)
        context.onOutOfMemory { [weak self] in self?.releaseKeptWindows() ?? false }
    }

    /// Releases the kept window buffers; true when there were any.
    private func releaseKeptWindows() -> Bool {
        idleWindows.withLock { idle in
            defer { idle.removeAll() }
            return !idle.isEmpty
        }
    }

    /// Whether every heap is device-local and some memory type is both device-local and host-visible.
    private static func hasSharedMemory(_ memory: VkPhysicalDeviceMemoryProperties) -> Bool {
        let heaps = withUnsafeBytes(of: memory.memoryHeaps) { raw in
            (0..<Int(memory.memoryHeapCount)).map { raw.load(fromByteOffset: $0 * MemoryLayout<VkMemoryHeap>.stride, as: VkMemoryHeap.self) }
        }
        let types = withUnsafeBytes(of: memory.memoryTypes) { raw in
            (0..<Int(memory.memoryTypeCount)).map { raw.load(fromByteOffset: $0 * MemoryLayout<VkMemoryType>.stride, as: VkMemoryType.self) }
        }
        let local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT.rawValue, visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT.rawValue
        return heaps.allSatisfy { $0.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT.rawValue != 0 }
            && types.contains { $0.propertyFlags & (local | visible) == local | visible }
    }

    package func devicePlace(for graph: PassGraph, depth: PixelBuffer.Depth, sourceHeld: Bool) -> (any StripPlace)? {
        stripsOnDevice ? DeviceStrips(backend: self, depth: depth, sourceHeld: sourceHeld) : nil
    }

    package func deviceStrips(depth: PixelBuffer.Depth, sourceHeld: Bool) -> DeviceStripLayout? {
        stripsOnDevice ? DeviceStrips.layout(sharedMemory: sharedMemory, sourceHeld: sourceHeld, depth: depth) : nil
    }

    /// Counts bytes handed to the device and back (``traffic``).
    func count(up: Int, down: Int) {
        bytesUp.add(up, ordering: .relaxed)
        bytesDown.add(down, ordering: .relaxed)
    }

    public var traffic: DeviceTraffic {
        DeviceTraffic(bytesUp: bytesUp.load(ordering: .relaxed), bytesDown: bytesDown.load(ordering: .relaxed),
                      submissions: context.submissions)
    }

    /// Kernels built so far (`unpack` and `pack` included): one per kernel used, however many
    /// images and threads use it; a kernel with a short program (`blur_y`) builds both pipelines.
    package var pipelineBuilds: Int { builds.load(ordering: .relaxed) }

    /// The pipeline of `kernel`, built the first time a graph needs it and kept.
    /// Built under the lock, so threads that need the same kernel at once build it once.
    func pipeline(for kernel: KernelID) throws(ComputeError) -> ComputeKernel {
        try kernels.withLock { kernels throws(ComputeError) -> ComputeKernel in
            if let built = kernels[kernel] { return built }
            let built = try ComputeKernel(kernel, layout: layout, shortRuns: shortRuns)
            kernels[kernel] = built
            builds.add(1, ordering: .relaxed)
            return built
        }
    }

    /// The workgroup shape a dispatch of `kernel` over a tile of `width` × `height` pixels runs
    /// in (``ComputeKernel/program(for:)``): `blur_y`'s runs of 32 rows for short tiles, 256 else.
    package func workgroup(of kernel: KernelID, width: Int, height: Int) throws(ComputeError) -> (x: Int, y: Int) {
        try pipeline(for: kernel).program(for: SIMD4(0, 0, Int32(width), Int32(height))).groupSize
    }

    // MARK: - The two ways a graph runs

    package func renderWhole(_ image: PixelBuffer, graph: PassGraph) throws -> PixelBuffer {
        let resultSize = graph.size(of: graph.result, source: (image.width, image.height))
        let outputBytes = resultSize.width * resultSize.height * image.bytesPerPixel
        var failure: ComputeError?
        let bytes = [UInt8](unsafeUninitializedCapacity: outputBytes) { output, initialized in
            do throws(ComputeError) {
                try withSlot { slot throws(ComputeError) in
                    try submit(wholeWork(image, graph: graph, into: output.baseAddress!, in: slot), in: slot)
                }
                initialized = outputBytes
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return PixelBuffer(width: resultSize.width, height: resultSize.height, depth: image.depth, bytes: bytes)
    }

    package func run(_ pass: RenderPass, cpu: RenderPass.CPUKernel, inputs: [FloatRows],
                     sizes: [(width: Int, height: Int)], output: FloatRows) throws {
        // A pure copy (remap) runs on the host: on a device it would only add transfers.
        guard !pass.isCopy else { return cpu(inputs, output) }
        try withSlot { slot throws(ComputeError) in
            try submit(stripWork(pass, inputs: inputs, inputSizes: sizes, output: output, in: slot), in: slot)
        }
    }

    /// Runs `body` with an idle slot (made when none is idle). Only a slot that
    /// finished cleanly is kept for the next image; after an error it is released.
    private func withSlot(_ body: (RenderSlot) throws(ComputeError) -> Void) throws(ComputeError) {
        let slot = try takeSlot()
        try body(slot)
        giveBack(slot)
    }

    /// An idle slot, or a new one when none is idle.
    func takeSlot() throws(ComputeError) -> RenderSlot {
        if let idle = idleSlots.withLock({ $0.popLast() }) { return idle }
        return try RenderSlot(layout: layout)
    }

    /// Keeps `slot`, which finished cleanly, for the next image.
    func giveBack(_ slot: RenderSlot) {
        idleSlots.withLock { $0.append(slot) }
    }

    /// At most this many bytes of window buffers are kept between images.
    private static let keptWindowBytes = 1 << 30
    /// At most this many window buffers are kept, each of at least ``keptWindowMinimum`` bytes
    /// (a window never filled gets a buffer of a few bytes, which no later window could use).
    private static let keptWindowCount = 32
    private static let keptWindowMinimum = 1 << 20

    /// A device-local buffer of at least `bytes` for a window of device strips:
    /// the smallest kept one that is large enough and at most four times too
    /// large, else a new one. Allocating device memory costs in proportion to its
    /// size on the H200 (18 ms of a 24 MP chain's 41 ms render with 32 MiB
    /// strips, 2026-11-27), so windows' buffers outlive their image (``keep(_:)``).
    /// When the device has no memory left for any device-local buffer, the kept
    /// ones are released and the allocation tried once more (``VulkanContext/onOutOfMemory(_:)``).
    func windowBuffer(bytes: Int) throws(ComputeError) -> VulkanBuffer {
        let kept = idleWindows.withLock { idle -> VulkanBuffer? in
            guard let index = idle.indices.filter({ idle[$0].size >= bytes && idle[$0].size <= 4 * bytes })
                .min(by: { idle[$0].size < idle[$1].size }) else { return nil }
            return idle.remove(at: index)
        }
        if let kept { return kept }
        let made = try VulkanBuffer(context: context, size: bytes, placement: .deviceLocal)
        windowAllocations.add(1, ordering: .relaxed)
        return made
    }

    /// Window buffers allocated so far (not taken from those kept).
    var windowBuffersAllocated: Int { windowAllocations.load(ordering: .relaxed) }

    /// Keeps the window buffers of an image that finished cleanly (no work in
    /// flight uses them) for the next: the largest first, up to
    /// ``keptWindowCount`` buffers and ``keptWindowBytes`` in all; none where the
    /// device's memory is the host's (there they would stay in the process's RSS
    /// between images, and allocating is cheap).
    func keep(_ buffers: [VulkanBuffer]) {
        guard !sharedMemory else { return }
        idleWindows.withLock { idle in
            var total = 0
            idle = (idle + buffers.filter { $0.size >= Self.keptWindowMinimum })
                .sorted { $0.size > $1.size }
                .filter { buffer in
                    // A buffer that would pass the total is left out, not every one after it.
                    guard total + buffer.size <= Self.keptWindowBytes else { return false }
                    total += buffer.size
                    return true
                }
                .prefix(Self.keptWindowCount)
                .map { $0 }
        }
    }

    // MARK: - One submission

    /// One submission's work: what goes up, the dispatches in order, what comes down.
    struct Work {
        /// Host bytes copied into a device buffer before the dispatches.
        struct Upload {
            /// Writes the bytes into staging.
            let fill: (UnsafeMutableRawPointer) -> Void
            let bytes: Int
            let to: VulkanBuffer
            let offset: Int
        }
        /// Device bytes copied to host memory after the dispatches.
        struct Download {
            let from: VulkanBuffer
            let offset: Int
            let bytes: Int
            let to: UnsafeMutableRawPointer
        }
        enum Step {
            /// A kernel over a range of pixels (`unpack`, `pack`).
            case pixels(ComputeKernel, [RenderSlot.Binding], KernelParameters)
            /// A pass's kernel over an output rectangle.
            case tile(ComputeKernel, [RenderSlot.Binding], PassConstants)
            /// Makes the earlier stage's writes visible to the later one.
            case barrier(CommandSequence.Stage, CommandSequence.Stage)
        }
        var uploads: [Upload] = []
        var steps: [Step] = []
        var downloads: [Download] = []
    }

    /// Stages the uploads, binds every dispatch, records one command buffer
    /// (uploads, barrier, steps, barrier, downloads), runs it and copies the
    /// downloads out. Downloads reuse staging from its start: the barriers
    /// order them after the uploads have been read.
    private func submit(_ work: Work, in slot: RenderSlot) throws(ComputeError) {
        let aligned = { (bytes: Int) in (bytes + 15) / 16 * 16 }
        let upOffsets = work.uploads.reduce(into: [0]) { $0.append($0.last! + aligned($1.bytes)) }
        let downOffsets = work.downloads.reduce(into: [0]) { $0.append($0.last! + aligned($1.bytes)) }
        try slot.reserveStaging(max(upOffsets.last!, downOffsets.last!))
        guard let staging = slot.staging, let mapped = staging.mapped else { throw .setupFailed("staging buffer missing") }
        for (upload, offset) in zip(work.uploads, upOffsets) {
            upload.fill(mapped + offset)
        }
        let sets = try slot.makeSets(work.steps.compactMap { step in
            switch step {
            case .pixels(_, let bindings, _), .tile(_, let bindings, _): bindings
            case .barrier: nil
            }
        })
        try slot.sequence.record { commands in
            for (upload, offset) in zip(work.uploads, upOffsets) where upload.bytes > 0 {
                commands.copy(from: staging, offset: offset, to: upload.to, offset: upload.offset, size: upload.bytes)
            }
            commands.barrier(.transfer, .compute)
            var nextSet = sets.makeIterator()
            for step in work.steps {
                switch step {
                case .pixels(let kernel, _, let parameters):
                    commands.dispatch(kernel, set: nextSet.next()!, parameters: parameters)
                case .tile(let kernel, _, let constants):
                    commands.dispatch(kernel, set: nextSet.next()!, constants: constants)
                case .barrier(let source, let destination):
                    commands.barrier(source, destination)
                }
            }
            commands.barrier(.compute, .transfer)
            for (download, offset) in zip(work.downloads, downOffsets) where download.bytes > 0 {
                commands.copy(from: download.from, offset: download.offset, to: staging, offset: offset, size: download.bytes)
            }
            commands.barrier(.transfer, .host)
        }
        try slot.sequence.run()
        count(up: work.uploads.reduce(0) { $0 + $1.bytes }, down: work.downloads.reduce(0) { $0 + $1.bytes })
        for (download, offset) in zip(work.downloads, downOffsets) {
            download.to.copyMemory(from: mapped + offset, byteCount: download.bytes)
        }
    }

    /// A whole graph: the samples and constants go up, `unpack`, every pass
    /// (tiled to fit a binding) and `pack` run with the pixels on the device,
    /// the packed output comes down into `output`.
    private func wholeWork(_ image: PixelBuffer, graph: PassGraph, into output: UnsafeMutableRawPointer,
                           in slot: RenderSlot) throws(ComputeError) -> Work {
        let sourceSize = (width: image.width, height: image.height)
        let resultSize = graph.size(of: graph.result, source: sourceSize)
        let bytesPerPixel = image.bytesPerPixel
        let outputPixels = resultSize.width * resultSize.height
        let samples = try slot.samples(bytes: max(image.bytes.count, outputPixels * bytesPerPixel))
        var buffers: [ImageRef: VulkanBuffer] = [:]
        buffers[.source] = try slot.buffer(for: .source, pixels: image.pixelCount)
        for (index, constant) in graph.constants.enumerated() {
            buffers[.constant(index)] = try slot.buffer(for: .constant(index), pixels: constant.pixels.count)
        }
        for (index, pass) in graph.passes.enumerated() {
            buffers[.pass(index)] = try slot.buffer(for: .pass(index), pixels: pass.width * pass.height)
        }

        var work = Work()
        let pixelBytes = MemoryLayout<SIMD4<Float>>.size
        work.uploads.append(.init(fill: { to in image.bytes.withUnsafeBytes { to.copyMemory(from: $0.baseAddress!, byteCount: $0.count) } },
                                  bytes: image.bytes.count, to: samples, offset: 0))
        for (index, constant) in graph.constants.enumerated() {
            work.uploads.append(.init(fill: { to in constant.pixels.withUnsafeBytes { to.copyMemory(from: $0.baseAddress!, byteCount: $0.count) } },
                                      bytes: constant.pixels.count * pixelBytes, to: buffers[.constant(index)]!, offset: 0))
        }
        let sixteenBit: UInt32 = image.depth == .sixteen ? 1 : 0
        func chunks(_ pixels: Int, _ floats: VulkanBuffer, unpacking: Bool) {
            for first in stride(from: 0, to: pixels, by: chunkPixels) {
                let count = min(chunkPixels, pixels - first)
                let sampleRange = RenderSlot.Binding(buffer: samples, offset: first * bytesPerPixel, size: count * bytesPerPixel)
                let floatRange = RenderSlot.Binding(buffer: floats, offset: first * pixelBytes, size: count * pixelBytes)
                let scale = unpacking ? UnpackKernel.scale(for: image.depth) : PackKernel.scale(for: image.depth)
                work.steps.append(.pixels(unpacking ? unpack : pack, unpacking ? [sampleRange, floatRange] : [floatRange, sampleRange],
                                          KernelParameters(pixelCount: UInt32(count), sixteenBit: sixteenBit, scale: scale)))
            }
        }
        chunks(image.pixelCount, buffers[.source]!, unpacking: true)
        for (index, pass) in graph.passes.enumerated() {
            work.steps.append(.barrier(.compute, .compute))
            let inputSizes = pass.inputs.map { graph.size(of: $0.image, source: sourceSize) }
            let region = PixelRect(width: pass.width, height: pass.height)
            // Whole images sit in buffers that start at pixel 0.
            try tiles(of: pass, region: region, inputSizes: inputSizes,
                      inputs: pass.inputs.map { (buffers[$0.image]!, 0) }, output: (buffers[.pass(index)]!, 0), into: &work)
        }
        work.steps.append(.barrier(.compute, .compute))
        chunks(outputPixels, buffers[graph.result]!, unpacking: false)
        work.downloads.append(.init(from: samples, offset: 0, bytes: outputPixels * bytesPerPixel, to: output))
        return work
    }

    /// One chunk of one pass in strip execution: the input windows go up, the
    /// pass runs on the output rows, the rows come back. Each window sits in a
    /// device buffer that starts at the aligned pixel index at or before its
    /// first pixel, so the shaders address it with the same image coordinates
    /// and bases as a whole image.
    private func stripWork(_ pass: RenderPass, inputs: [FloatRows], inputSizes: [(width: Int, height: Int)],
                           output: FloatRows, in slot: RenderSlot) throws(ComputeError) -> Work {
        let pixelBytes = MemoryLayout<SIMD4<Float>>.size
        let views = inputs + [output]
        var work = Work()
        var placed: [(buffer: VulkanBuffer, start: Int)] = []
        for (index, view) in views.enumerated() {
            let start = view.top * view.width / PassTiling.alignment * PassTiling.alignment
            let padding = view.top * view.width - start
            let buffer = try slot.stripBuffer(index, pixels: padding + max(1, view.height * view.width))
            placed.append((buffer, start))
            let bytes = view.height * view.width * pixelBytes
            if index < inputs.count {
                work.uploads.append(.init(fill: { $0.copyMemory(from: view.base, byteCount: bytes) }, bytes: bytes, to: buffer,
                                          offset: padding * pixelBytes))
            } else {
                work.downloads.append(.init(from: buffer, offset: padding * pixelBytes, bytes: bytes, to: view.base))
            }
        }
        let region = PixelRect(x: 0, y: output.top, width: output.width, height: output.height)
        try tiles(of: pass, region: region, inputSizes: inputSizes, inputs: Array(placed.dropLast()), output: placed.last!,
                  into: &work)
        return work
    }

    /// The dispatches of `region` of `pass`, in tiles that each fit one binding:
    /// each input bound from its footprint, the output from the tile, in
    /// buffers that start at pixel index `start` of their image.
    func tiles(of pass: RenderPass, region: PixelRect, inputSizes: [(width: Int, height: Int)],
                       inputs: [(buffer: VulkanBuffer, start: Int)], output: (buffer: VulkanBuffer, start: Int),
                       into work: inout Work) throws(ComputeError) {
        let kernel = try pipeline(for: pass.kernel)
        let pixelBytes = MemoryLayout<SIMD4<Float>>.size
        for tile in try PassTiling.tiles(for: pass, region: region, inputSizes: inputSizes, limit: chunkPixels) {
            var bindings: [RenderSlot.Binding] = []
            var bases: [Int] = []
            for (slot, input) in pass.inputs.enumerated() {
                let size = inputSizes[slot]
                let footprint = input.footprint(tile).intersection(PixelRect(width: size.width, height: size.height))
                // An input this tile does not read (a mark outside it) still needs a binding.
                let span = footprint.isEmpty ? inputs[slot].start..<(inputs[slot].start + 1)
                    : PassTiling.span(of: footprint, width: size.width)
                bindings.append(RenderSlot.Binding(buffer: inputs[slot].buffer, offset: (span.lowerBound - inputs[slot].start) * pixelBytes,
                                                   size: span.count * pixelBytes))
                bases.append(span.lowerBound)
            }
            let out = PassTiling.span(of: tile, width: pass.width)
            let outBinding = RenderSlot.Binding(buffer: output.buffer, offset: (out.lowerBound - output.start) * pixelBytes,
                                                size: out.count * pixelBytes)
            // Bindings 0 (source), 1 (destination), 2 (auxiliary source).
            work.steps.append(.tile(kernel, bindings.count > 1 ? [bindings[0], outBinding, bindings[1]] : [bindings[0], outBinding],
                                    Self.constants(pass, tile: tile, inputSizes: inputSizes,
                                                   bases: (bases[0], out.lowerBound, bases.last!))))
        }
    }

    /// The push constants of one tile of `pass` (`Shaders/pass.glsl`).
    private static func constants(_ pass: RenderPass, tile: PixelRect, inputSizes: [(width: Int, height: Int)],
                                  bases: (source: Int, destination: Int, auxiliary: Int)) -> PassConstants {
        let ints = pass.ints + Array(repeating: 0, count: 8 - pass.ints.count)
        let floats = pass.floats + Array(repeating: 0, count: 12 - pass.floats.count)
        return PassConstants(
            tile: SIMD4(Int32(tile.x), Int32(tile.y), Int32(tile.width), Int32(tile.height)),
            images: SIMD4(Int32(inputSizes[0].width), Int32(inputSizes[0].height), Int32(pass.width), Int32(pass.height)),
            bases: SIMD4(Int32(bases.source), Int32(bases.destination), Int32(bases.auxiliary),
                         Int32(inputSizes.count > 1 ? inputSizes[1].width : 0)),
            ints: (SIMD4(ints[0..<4]), SIMD4(ints[4..<8])),
            floats: (SIMD4(floats[0..<4]), SIMD4(floats[4..<8]), SIMD4(floats[8..<12])))
    }
}
