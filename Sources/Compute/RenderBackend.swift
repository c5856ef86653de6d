public import PNGCodec

/// Which kind of engine a backend runs on.
public enum BackendKind: String, Sendable {
    /// A Vulkan device (a GPU, or a software device chosen with `--device vulkan`).
    case vulkan
    /// Swift kernels on the CPU's cores.
    case cpu
}

/// Renders canonical pixel buffers. One backend serves a whole export job and
/// keeps its resources (device buffers, pipelines) across images.
///
/// Errors thrown by `render` are `ComputeError`s; from a Vulkan backend every
/// one of them (device lost, out of device memory, …) means the image can be
/// rendered again on the CPU backend, which gives byte-identical results.
public protocol RenderBackend: AnyObject, Sendable {
    /// Shown to users: "Vulkan · NVIDIA H100 80GB HBM3", "Vulkan · llvmpipe (LLVM 15.0.6, 256 bits)", "CPU".
    var label: String { get }
    /// Vulkan or CPU.
    var kind: BackendKind { get }
    /// Renders `image` through `graph` (unpack → passes → pack), whole; called
    /// concurrently from several threads. The output keeps the source's depth.
    func render(_ image: PixelBuffer, graph: PassGraph) throws -> PixelBuffer
}

/// A backend that also runs passes a strip at a time (`StripExecutor`); both of Kiln's do.
package protocol StripBackend: RenderBackend {
    /// Runs one chunk of one pass: fills `output` (whole rows) from views of
    /// the inputs (whole images of `sizes`) holding their footprints. Errors as for `render`.
    func run(_ pass: RenderPass, inputs: [FloatRows], sizes: [(width: Int, height: Int)], output: FloatRows) throws
}

extension RenderBackend {
    /// The render stage with no operations: unpack then pack (the identity).
    public func render(_ image: PixelBuffer) throws -> PixelBuffer {
        try render(image, graph: PassGraph())
    }
}
