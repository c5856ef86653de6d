package import ImageCore

/// The CPU path: the render stage as the passes' CPU kernels (Swift, their
/// innermost loops in C: `CKernels`) over all cores, in strips
/// (`StripExecutor`). Never touches Vulkan. Its outputs are the reference the
/// Vulkan backend must match.
public final class CPUBackend: PassBackend {
    public var label: String { "CPU" }
    public var kind: BackendKind { .cpu }

    /// A CPU backend; it holds no resources.
    public init() {}

    package func run(_ pass: RenderPass, cpu: RenderPass.CPUKernel, inputs: [FloatRows],
                     sizes: [(width: Int, height: Int)], output: FloatRows) throws {
        cpu(inputs, output)
    }

    /// Strips always: a whole float image only adds memory on the CPU.
    package var wholeGraphBytes: Int { 0 }

    /// Host memory is the CPU's own.
    package func devicePlace(for graph: PassGraph, depth: PixelBuffer.Depth, sourceHeld: Bool) -> (any StripPlace)? { nil }

    /// Without the passes whose CPU twin only forwards its input.
    package func prepared(_ graph: PassGraph) -> PassGraph { graph.withoutCPUForwards }

    package func renderWhole(_ image: PixelBuffer, graph: PassGraph) throws -> PixelBuffer {
        let size = graph.size(of: graph.result, source: (image.width, image.height))
        let sink = PixelBufferSink(width: size.width, height: size.height, depth: image.depth)
        try StripExecutor(graph: prepared(graph), source: image, backend: self).render(into: sink)
        return sink.takeImage()
    }
}
