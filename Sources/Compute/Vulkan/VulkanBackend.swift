import CShaders
import CVulkan
public import Devices
public import PNGCodec
import Synchronization

/// The Vulkan path: the render stage as compute shaders on one device.
///
/// Everything is created once per job: the context and layout at init, each
/// shader's pipeline the first time a graph uses it, and one `RenderSlot`
/// (buffers, descriptor sets, command buffer) per thread rendering at the same
/// time, kept for the next image. An image makes one upload, runs `unpack`,
/// every pass of its graph and `pack` while its pixels stay on the device, and
/// makes one download. With no passes the output is byte-identical to `CPUBackend`'s.
public final class VulkanBackend: StripBackend {
    public let label: String
    public var kind: BackendKind { .vulkan }

    private let context: VulkanContext
    private let layout: KernelLayout
    private let unpack: ComputeKernel
    private let pack: ComputeKernel
    private let kernels = Mutex<[String: ComputeKernel]>([:])
    private let builds = Atomic<Int>(0)
    private let idleSlots = Mutex<[RenderSlot]>([])
    /// Pixels per binding: what one storage-buffer binding of float pixels can address.
    private let chunkPixels: Int

    /// Sets up `device` (an entry of a `DeviceReport`) for rendering.
    public init(device: DeviceInfo, options: VulkanOptions = .fromEnvironment()) throws {
        let loader: VulkanLoader
        switch VulkanLoader.open(environment: options.environment) {
        case .success(let opened): loader = opened
        case .failure(let failure): throw ComputeError.unavailable(reason: "no Vulkan loader: \(failure.message)")
        }
        let instance: VulkanInstance
        let physical: PhysicalDevice
        do {
            instance = try VulkanInstance(loader: loader, validation: options.validation)
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
        unpack = try ComputeKernel(name: "unpack", spirv: kiln_spv_unpack, size: kiln_spv_unpack_size, layout: layout)
        pack = try ComputeKernel(name: "pack", spirv: kiln_spv_pack, size: kiln_spv_pack_size, layout: layout)
        builds.store(2, ordering: .relaxed)
        label = "Vulkan · \(device.name)"
        let workgroup = ComputeKernel.workgroupSize
        let addressable = Int(physical.limits.maxStorageBufferRange) / MemoryLayout<SIMD4<Float>>.size
        let wanted = min(addressable, options.maxPixelsPerDispatch ?? .max)
        // A multiple of the workgroup size keeps every chunk offset aligned (≥ 1 KiB, above any
        // minStorageBufferOffsetAlignment).
        chunkPixels = max(workgroup, wanted / workgroup * workgroup)
    }

    public func render(_ image: PixelBuffer, graph: PassGraph) throws -> PixelBuffer {
        let slot = try idleSlots.withLock { $0.popLast() } ?? RenderSlot(layout: layout)
        let output = try render(image, graph: graph, in: slot)
        // Only a slot that finished cleanly is reused; after an error it is released.
        idleSlots.withLock { $0.append(slot) }
        return output
    }

    package func run(_ pass: RenderPass, inputs: [FloatRows], sizes: [(width: Int, height: Int)], output: FloatRows) throws {
        let slot = try idleSlots.withLock { $0.popLast() } ?? RenderSlot(layout: layout)
        try run(pass, inputs: inputs, inputSizes: sizes, output: output, in: slot)
        idleSlots.withLock { $0.append(slot) }
    }

    /// Pipelines built so far (`unpack` and `pack` included): one per shader used,
    /// however many images and threads use it.
    package var pipelineBuilds: Int { builds.load(ordering: .relaxed) }

    /// The pipeline of `shader`, built the first time a graph needs it and kept.
    /// Built under the lock, so threads that need the same shader at once build it once.
    private func kernel(for shader: Shader) throws(ComputeError) -> ComputeKernel {
        try kernels.withLock { kernels throws(ComputeError) -> ComputeKernel in
            if let kernel = kernels[shader.name] { return kernel }
            let kernel = try ComputeKernel(name: shader.name, spirv: shader.spirv, size: shader.size, layout: layout)
            kernels[shader.name] = kernel
            builds.add(1, ordering: .relaxed)
            return kernel
        }
    }

    /// What is recorded, in order; dispatches take the next descriptor set.
    private enum Step {
        case chunk(ComputeKernel, KernelParameters)
        case tile(ComputeKernel, PassConstants, groupSize: (x: Int, y: Int))
        case barrier(CommandSequence.Stage, CommandSequence.Stage)
    }

    private func render(_ image: PixelBuffer, graph: PassGraph, in slot: RenderSlot) throws(ComputeError) -> PixelBuffer {
        let sourceSize = (width: image.width, height: image.height)
        let resultSize = graph.size(of: graph.result, source: sourceSize)
        let bytesPerPixel = image.bytesPerPixel
        let inputBytes = image.bytes.count
        let outputPixels = resultSize.width * resultSize.height
        let outputBytes = outputPixels * bytesPerPixel
        let sampleBytes = max(inputBytes, outputBytes)
        // Staging holds the samples, then each constant's floats.
        var constantOffsets: [Int] = []
        var stagingBytes = (sampleBytes + 15) / 16 * 16
        for constant in graph.constants {
            constantOffsets.append(stagingBytes)
            stagingBytes += constant.pixels.count * MemoryLayout<SIMD4<Float>>.size
        }
        try slot.reserve(stagingBytes: stagingBytes, sampleBytes: sampleBytes)
        guard let staging = slot.staging, let samples = slot.samples, let mapped = staging.mapped else {
            throw .setupFailed("render buffers missing")
        }
        image.bytes.withUnsafeBytes { mapped.copyMemory(from: $0.baseAddress!, byteCount: inputBytes) }
        for (constant, offset) in zip(graph.constants, constantOffsets) {
            constant.pixels.withUnsafeBytes { (mapped + offset).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }

        var buffers: [ImageRef: VulkanBuffer] = [:]
        buffers[.source] = try slot.buffer(for: .source, pixels: image.pixelCount)
        for (index, constant) in graph.constants.enumerated() {
            buffers[.constant(index)] = try slot.buffer(for: .constant(index), pixels: constant.pixels.count)
        }
        for (index, pass) in graph.passes.enumerated() {
            buffers[.pass(index)] = try slot.buffer(for: .pass(index), pixels: pass.width * pass.height)
        }

        var sets: [[RenderSlot.Binding]] = []
        var steps: [Step] = [.barrier(.transfer, .compute)]
        let sixteenBit: UInt32 = image.depth == .sixteen ? 1 : 0
        func chunks(_ pixels: Int, _ floats: VulkanBuffer, unpacking: Bool) {
            for first in stride(from: 0, to: pixels, by: chunkPixels) {
                let count = min(chunkPixels, pixels - first)
                let sampleRange = RenderSlot.Binding(buffer: samples, offset: first * bytesPerPixel, size: count * bytesPerPixel)
                let floatRange = RenderSlot.Binding(buffer: floats, offset: first * 16, size: count * 16)
                sets.append(unpacking ? [sampleRange, floatRange] : [floatRange, sampleRange])
                let scale = unpacking ? UnpackKernel.scale(for: image.depth) : PackKernel.scale(for: image.depth)
                steps.append(.chunk(unpacking ? unpack : pack,
                                    KernelParameters(pixelCount: UInt32(count), sixteenBit: sixteenBit, scale: scale)))
            }
        }
        chunks(image.pixelCount, buffers[.source]!, unpacking: true)
        for (index, pass) in graph.passes.enumerated() {
            steps.append(.barrier(.compute, .compute))
            let kernel = try kernel(for: pass.shader)
            let inputSizes = pass.inputs.map { graph.size(of: $0.image, source: sourceSize) }
            for tile in try PassTiling.tiles(for: pass, inputSizes: inputSizes, limit: chunkPixels) {
                let output = PassTiling.span(of: tile, width: pass.width)
                let inputs = zip(pass.inputs, inputSizes).map { input, size in
                    PassTiling.span(of: PassTiling.footprint(input, of: tile, inputSize: size), width: size.width)
                }
                var bindings = [RenderSlot.Binding(buffer: buffers[pass.inputs[0].image]!, offset: inputs[0].lowerBound * 16,
                                                   size: inputs[0].count * 16),
                                RenderSlot.Binding(buffer: buffers[.pass(index)]!, offset: output.lowerBound * 16,
                                                   size: output.count * 16)]
                if pass.inputs.count > 1 {
                    bindings.append(RenderSlot.Binding(buffer: buffers[pass.inputs[1].image]!,
                                                       offset: inputs[1].lowerBound * 16, size: inputs[1].count * 16))
                }
                sets.append(bindings)
                steps.append(.tile(kernel, Self.constants(pass, tile: tile, inputSizes: inputSizes,
                                                          bases: (inputs[0].lowerBound, output.lowerBound, inputs.last!.lowerBound)),
                                   groupSize: pass.shader.groupSize))
            }
        }
        steps.append(.barrier(.compute, .compute))
        chunks(outputPixels, buffers[graph.result]!, unpacking: false)
        steps.append(.barrier(.compute, .transfer))

        let handles = try slot.makeSets(sets)
        try slot.sequence.record { commands in
            commands.copy(from: staging, to: samples, size: inputBytes)
            for (index, offset) in constantOffsets.enumerated() {
                let constant = buffers[.constant(index)]!
                commands.copy(from: staging, offset: offset, to: constant,
                              size: graph.constants[index].pixels.count * MemoryLayout<SIMD4<Float>>.size)
            }
            var nextSet = handles.makeIterator()
            for step in steps {
                switch step {
                case .chunk(let kernel, let parameters):
                    commands.dispatch(kernel, set: nextSet.next()!, parameters: parameters)
                case .tile(let kernel, let constants, let groupSize):
                    commands.dispatch(kernel, set: nextSet.next()!, constants: constants, groupSize: groupSize)
                case .barrier(let source, let destination):
                    commands.barrier(source, destination)
                }
            }
            commands.copy(from: samples, to: staging, size: outputBytes)
            commands.barrier(.transfer, .host)
        }
        try slot.sequence.run()

        let bytes = [UInt8](unsafeUninitializedCapacity: outputBytes) { output, initialized in
            UnsafeMutableRawBufferPointer(output).copyMemory(from: UnsafeRawBufferPointer(start: mapped, count: outputBytes))
            initialized = outputBytes
        }
        return PixelBuffer(width: resultSize.width, height: resultSize.height, depth: image.depth, bytes: bytes)
    }

    /// The push constants of one tile of `pass` (`Shaders/pass.glsl`).
    private static func constants(_ pass: RenderPass, tile: PixelRect, inputSizes: [(width: Int, height: Int)],
                                  bases: (source: Int, destination: Int, auxiliary: Int)) -> PassConstants {
        let ints = (pass.ints + Array(repeating: 0, count: 8 - pass.ints.count)).map { $0 }
        let floats = pass.floats + Array(repeating: 0, count: 12 - pass.floats.count)
        return PassConstants(
            tile: SIMD4(Int32(tile.x), Int32(tile.y), Int32(tile.width), Int32(tile.height)),
            images: SIMD4(Int32(inputSizes[0].width), Int32(inputSizes[0].height), Int32(pass.width), Int32(pass.height)),
            bases: SIMD4(Int32(bases.source), Int32(bases.destination), Int32(bases.auxiliary),
                         Int32(inputSizes.count > 1 ? inputSizes[1].width : 0)),
            ints: (SIMD4(ints[0..<4]), SIMD4(ints[4..<8])),
            floats: (SIMD4(floats[0..<4]), SIMD4(floats[4..<8]), SIMD4(floats[8..<12])))
    }

    /// One chunk of one pass in strip execution: the input windows go up, the
    /// pass runs on the output rows (in tiles, as `render` does), the rows come
    /// back. Each window sits in a device buffer that starts at the aligned
    /// pixel index at or before its first pixel, so the shaders address it with
    /// the same image coordinates and bases as a whole image.
    private func run(_ pass: RenderPass, inputs: [FloatRows], inputSizes: [(width: Int, height: Int)], output: FloatRows,
                     in slot: RenderSlot) throws(ComputeError) {
        let kernel = try kernel(for: pass.shader)
        let pixelBytes = MemoryLayout<SIMD4<Float>>.size
        let views = inputs + [output]
        // Per view: the aligned pixel index its buffer starts at, and where its pixels sit in staging.
        let starts = views.map { $0.top * $0.width / PassTiling.alignment * PassTiling.alignment }
        var stagingOffsets: [Int] = []
        var stagingBytes = 0
        for view in views {
            stagingOffsets.append(stagingBytes)
            stagingBytes += max(1, view.height * view.width) * pixelBytes
        }
        try slot.reserve(stagingBytes: stagingBytes, sampleBytes: 0)
        guard let staging = slot.staging, let mapped = staging.mapped else { throw .setupFailed("render buffers missing") }
        var buffers: [VulkanBuffer] = []
        for (index, view) in views.enumerated() {
            let padding = view.top * view.width - starts[index]
            buffers.append(try slot.stripBuffer(index, pixels: padding + max(1, view.height * view.width)))
            if index < inputs.count, view.height > 0 {
                (mapped + stagingOffsets[index]).copyMemory(from: view.base, byteCount: view.height * view.width * pixelBytes)
            }
        }

        var sets: [[RenderSlot.Binding]] = []
        var constants: [PassConstants] = []
        let region = PixelRect(x: 0, y: output.top, width: output.width, height: output.height)
        for tile in try PassTiling.tiles(for: pass, region: region, inputSizes: inputSizes, limit: chunkPixels) {
            let out = PassTiling.span(of: tile, width: pass.width)
            var bindings: [RenderSlot.Binding] = []
            var bases: [Int] = []
            for (slot, input) in pass.inputs.enumerated() {
                let size = inputSizes[slot]
                let footprint = input.footprint(tile).intersection(PixelRect(width: size.width, height: size.height))
                // An input this tile does not read (a mark outside it) still needs a binding.
                let span = footprint.isEmpty ? starts[slot]..<(starts[slot] + 1) : PassTiling.span(of: footprint, width: size.width)
                bindings.append(RenderSlot.Binding(buffer: buffers[slot], offset: (span.lowerBound - starts[slot]) * pixelBytes,
                                                   size: span.count * pixelBytes))
                bases.append(span.lowerBound)
            }
            let last = views.count - 1
            let outBinding = RenderSlot.Binding(buffer: buffers[last], offset: (out.lowerBound - starts[last]) * pixelBytes,
                                                size: out.count * pixelBytes)
            sets.append(bindings.count > 1 ? [bindings[0], outBinding, bindings[1]] : [bindings[0], outBinding])
            constants.append(Self.constants(pass, tile: tile, inputSizes: inputSizes,
                                            bases: (bases[0], out.lowerBound, bases.last!)))
        }

        let handles = try slot.makeSets(sets)
        try slot.sequence.record { commands in
            for (index, view) in inputs.enumerated() where view.height > 0 {
                commands.copy(from: staging, offset: stagingOffsets[index], to: buffers[index],
                              offset: (view.top * view.width - starts[index]) * pixelBytes, size: view.height * view.width * pixelBytes)
            }
            commands.barrier(.transfer, .compute)
            for (set, constant) in zip(handles, constants) {
                commands.dispatch(kernel, set: set, constants: constant, groupSize: pass.shader.groupSize)
            }
            commands.barrier(.compute, .transfer)
            let last = views.count - 1
            commands.copy(from: buffers[last], offset: (output.top * output.width - starts[last]) * pixelBytes, to: staging,
                          offset: stagingOffsets[last], size: output.height * output.width * pixelBytes)
            commands.barrier(.transfer, .host)
        }
        try slot.sequence.run()
        output.base.update(from: (mapped + stagingOffsets.last!).assumingMemoryBound(to: SIMD4<Float>.self),
                           count: output.height * output.width)
    }
}
