public import PNGCodec

/// The CPU path: the render stage as Swift kernels over all cores. Never
/// touches Vulkan. Its outputs are the reference the Vulkan backend must match.
public final class CPUBackend: RenderBackend {
    public var label: String { "CPU" }
    public var kind: BackendKind { .cpu }

    /// A CPU backend; it holds no resources.
    public init() {}

    public func render(_ image: PixelBuffer, graph: PassGraph) throws -> PixelBuffer {
        let source = UnpackKernel.run(image)
        var outputs: [FloatImage] = []
        outputs.reserveCapacity(graph.passes.count)
        for pass in graph.passes {
            let inputs = pass.inputs.map { input -> FloatImage in
                switch input.image {
                case .source: source
                case .constant(let index): graph.constants[index]
                case .pass(let index): outputs[index]
                }
            }
            outputs.append(pass.cpu(inputs))
        }
        return PackKernel.run(outputs.last ?? source)
    }
}
