package import ImageCore

/// Which kind of engine a backend runs on.
public enum BackendKind: String, Sendable {
    /// A Vulkan device (a GPU, or a software device chosen with `--device vulkan`).
    case vulkan
    /// Swift kernels on the CPU's cores.
    case cpu
}

/// Renders images. One backend serves a whole export job and keeps its
/// resources (device buffers, pipelines) across images; it is called
/// concurrently from several threads.
///
/// Errors thrown while rendering are `ComputeError`s; from a Vulkan backend
/// every one of them (device lost, out of device memory, …) means the image
/// can be rendered again on the CPU backend, which gives the same results.
public protocol RenderBackend: AnyObject, Sendable {
    /// Shown to users: "Vulkan · NVIDIA H100 80GB HBM3", "Vulkan · llvmpipe (LLVM 15.0.6, 256 bits)", "CPU".
    var label: String { get }
    /// Vulkan or CPU.
    var kind: BackendKind { get }
}

/// What the schedule (``RenderSchedule``) asks of a backend: both of Kiln's
/// implement it, each its own way, so the schedule never asks which one it has.
package protocol PassBackend: RenderBackend {
    /// Runs one chunk of one pass in strip execution: fills `output` (whole
    /// rows) from views of the inputs (whole images of `sizes`) holding their
    /// footprints. Errors as above.
    func run(_ pass: RenderPass, inputs: [FloatRows], sizes: [(width: Int, height: Int)], output: FloatRows) throws
    /// The most float bytes a graph (all its images at once) may hold for
    /// this backend to run it whole, in one go, rather than in strips; 0: never.
    var wholeGraphBytes: Int { get }
    /// Renders `image` through `graph` whole (unpack → passes → pack); asked
    /// only for graphs within ``wholeGraphBytes``. The output keeps the source's depth.
    func renderWhole(_ image: PixelBuffer, graph: PassGraph) throws -> PixelBuffer
}
