import CShaders
import CVulkan
public import Devices
public import PNGCodec
import Synchronization

/// The Vulkan path: the render stage as compute shaders on one device.
///
/// Everything is created once per job: the context and kernels at init, and
/// one `RenderSlot` (buffers, descriptor sets, command buffer) per thread
/// rendering at the same time, kept for the next image. `render` with no
/// operations is upload → `unpack` → `pack` → download, byte-identical to
/// `CPUBackend`.
public final class VulkanBackend: RenderBackend {
    public let label: String
    public var kind: BackendKind { .vulkan }

    private let context: VulkanContext
    private let unpack: ComputeKernel
    private let pack: ComputeKernel
    private let idleSlots = Mutex<[RenderSlot]>([])
    /// Pixels per dispatch: what one storage-buffer binding of float pixels can address.
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
        let layout = try KernelLayout(context: context)
        unpack = try ComputeKernel(name: "unpack", spirv: kiln_spv_unpack, size: kiln_spv_unpack_size, layout: layout)
        pack = try ComputeKernel(name: "pack", spirv: kiln_spv_pack, size: kiln_spv_pack_size, layout: layout)
        label = "Vulkan · \(device.name)"
        let workgroup = ComputeKernel.workgroupSize
        let addressable = Int(physical.limits.maxStorageBufferRange) / MemoryLayout<SIMD4<Float>>.size
        let wanted = min(addressable, options.maxPixelsPerDispatch ?? .max)
        // A multiple of the workgroup size keeps every chunk offset aligned (≥ 1 KiB, above any
        // minStorageBufferOffsetAlignment).
        chunkPixels = max(workgroup, wanted / workgroup * workgroup)
    }

    public func render(_ image: PixelBuffer) throws -> PixelBuffer {
        let slot = try idleSlots.withLock { $0.popLast() } ?? RenderSlot(layout: unpack.layout, chunkPixels: chunkPixels)
        let output = try render(image, in: slot)
        // Only a slot that finished cleanly is reused; after an error it is released.
        idleSlots.withLock { $0.append(slot) }
        return output
    }

    private func render(_ image: PixelBuffer, in slot: RenderSlot) throws(ComputeError) -> PixelBuffer {
        let byteCount = image.bytes.count
        try slot.reserve(pixels: image.pixelCount, bytesPerPixel: image.bytesPerPixel)
        guard let staging = slot.staging, let samples = slot.samples, let mapped = staging.mapped else {
            throw .setupFailed("render buffers missing")
        }
        image.bytes.withUnsafeBytes { mapped.copyMemory(from: $0.baseAddress!, byteCount: byteCount) }

        // The chunks covering this image, with the pixels of each (the last one may be partial).
        let chunks = (0..<(image.pixelCount + chunkPixels - 1) / chunkPixels).map { chunk in
            (slot.chunks[chunk], UInt32(min(chunkPixels, image.pixelCount - chunk * chunkPixels)))
        }
        let sixteenBit: UInt32 = image.depth == .sixteen ? 1 : 0
        try slot.sequence.record { commands in
            commands.copy(from: staging, to: samples, size: byteCount)
            commands.barrier(.transfer, .compute)
            for (sets, pixels) in chunks {
                commands.dispatch(unpack, set: sets.unpack, parameters: KernelParameters(
                    pixelCount: pixels, sixteenBit: sixteenBit, scale: UnpackKernel.scale(for: image.depth)))
            }
            commands.barrier(.compute, .compute)
            for (sets, pixels) in chunks {
                commands.dispatch(pack, set: sets.pack, parameters: KernelParameters(
                    pixelCount: pixels, sixteenBit: sixteenBit, scale: PackKernel.scale(for: image.depth)))
            }
            commands.barrier(.compute, .transfer)
            commands.copy(from: samples, to: staging, size: byteCount)
            commands.barrier(.transfer, .host)
        }
        try slot.sequence.run()

        let bytes = [UInt8](unsafeUninitializedCapacity: byteCount) { output, initialized in
            UnsafeMutableRawBufferPointer(output).copyMemory(from: UnsafeRawBufferPointer(start: mapped, count: byteCount))
            initialized = byteCount
        }
        return PixelBuffer(width: image.width, height: image.height, depth: image.depth, bytes: bytes)
    }
}
