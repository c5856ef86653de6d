public import PNGCodec

/// The CPU path: the render stage as Swift kernels over all cores, in strips
/// (`StripExecutor`). Never touches Vulkan. Its outputs are the reference the
/// Vulkan backend must match.
public final class CPUBackend: StripBackend {
    public var label: String { "CPU" }
    public var kind: BackendKind { .cpu }

    /// A CPU backend; it holds no resources.
    public init() {}

    public func render(_ image: PixelBuffer, graph: PassGraph) throws -> PixelBuffer {
        try StripExecutor(graph: graph, source: image, backend: self).render()
    }

    package func run(_ pass: RenderPass, inputs: [FloatRows], sizes: [(width: Int, height: Int)], output: FloatRows) throws {
        pass.cpu(inputs, output)
    }
}
