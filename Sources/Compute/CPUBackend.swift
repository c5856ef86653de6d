public import PNGCodec

/// The CPU path: the render stage as Swift kernels over all cores. Never
/// touches Vulkan. Its outputs are the reference the Vulkan backend must match.
public final class CPUBackend: RenderBackend {
    public var label: String { "CPU" }
    public var kind: BackendKind { .cpu }

    /// A CPU backend; it holds no resources.
    public init() {}

    public func render(_ image: PixelBuffer) throws -> PixelBuffer {
        let working = UnpackKernel.run(image)
        return PackKernel.run(working)
    }
}
