public import Devices
public import PNGCodec

/// The Vulkan path: the render stage as compute shaders on one device.
public final class VulkanBackend: RenderBackend {
    public let label: String
    public var kind: BackendKind { .vulkan }

    /// Sets up `device` (an entry of a `DeviceReport`) for rendering.
    public init(device: DeviceInfo, options: VulkanOptions = .fromEnvironment()) throws {
        label = "Vulkan · \(device.name)"
        throw ComputeError.setupFailed("the Vulkan backend is being written; use --device cpu")
    }

    public func render(_ image: PixelBuffer) throws -> PixelBuffer {
        throw ComputeError.setupFailed("the Vulkan backend is being written")
    }
}
