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
    /// What has crossed the host/device boundary so far, over every image this
    /// backend rendered (all zero on the CPU).
    var traffic: DeviceTraffic { get }
}

extension RenderBackend {
    /// Nothing crosses a boundary: the CPU works in host memory.
    public var traffic: DeviceTraffic { DeviceTraffic() }
}

/// Bytes moved between host memory and a device, and the submissions that
/// moved them: how the Vulkan path's design is checked without a GPU
/// (``RenderBackend/traffic``; the `--progress json` `end` event's
/// `deviceBytesUp`, `deviceBytesDown` and `deviceSubmissions`).
///
/// Bytes count what the host hands the device and gets back, whether the
/// device reads them through a copy into its own memory (a discrete GPU) or
/// straight from shared memory (lavapipe, integrated GPUs).
public struct DeviceTraffic: Sendable, Equatable {
    /// Bytes handed from the host to the device.
    public var bytesUp = 0
    /// Bytes handed back from the device to the host.
    public var bytesDown = 0
    /// Command buffers submitted.
    public var submissions = 0

    /// No traffic.
    public init(bytesUp: Int = 0, bytesDown: Int = 0, submissions: Int = 0) {
        self.bytesUp = bytesUp
        self.bytesDown = bytesDown
        self.submissions = submissions
    }

    /// The traffic of `self` after `earlier` (a difference of two readings).
    public func since(_ earlier: DeviceTraffic) -> DeviceTraffic {
        DeviceTraffic(bytesUp: bytesUp - earlier.bytesUp, bytesDown: bytesDown - earlier.bytesDown,
                      submissions: submissions - earlier.submissions)
    }
}

/// What the schedule (``RenderSchedule``) asks of a backend: both of Kiln's
/// implement it, each its own way, so the schedule never asks which one it has.
package protocol PassBackend: RenderBackend {
    /// Runs one chunk of one pass in strip execution: fills `output` (whole
    /// rows) from views of the inputs (whole images of `sizes`) holding their
    /// footprints; `cpu` is the pass's CPU kernel for this run, for whatever
    /// runs on the host. Errors as above.
    func run(_ pass: RenderPass, cpu: RenderPass.CPUKernel, inputs: [FloatRows], sizes: [(width: Int, height: Int)],
             output: FloatRows) throws
    /// The most float bytes a graph (all its images at once) may hold for
    /// this backend to run it whole, in one go, rather than in strips; 0: never.
    var wholeGraphBytes: Int { get }
    /// Renders `image` through `graph` whole (unpack → passes → pack); asked
    /// only for graphs within ``wholeGraphBytes``. The output keeps the source's depth.
    func renderWhole(_ image: PixelBuffer, graph: PassGraph) throws -> PixelBuffer
    /// Where strip execution of `graph` (over a source of `depth`) keeps its
    /// rows when the backend has memory of its own to keep them in — every
    /// pass of a strip recorded together, only stored rows crossing — or nil:
    /// host memory, a pass at a time through ``run(_:inputs:sizes:output:)``
    /// (``HostStrips``). Asked only for graphs that read every image forwards.
    /// `sourceHeld`: every source row is in memory already (a decoded image), not
    /// streamed from a decoder, so taller strips cost little beside it.
    func devicePlace(for graph: PassGraph, depth: PixelBuffer.Depth, sourceHeld: Bool) -> (any StripPlace)?
    /// How the strips ``devicePlace(for:depth:sourceHeld:)`` makes for rows of `depth` hold
    /// them (their chunks, where their windows live, their staging), for the schedule's
    /// estimate; nil where strips run in host memory (``HostStrips``), as on the CPU.
    func deviceStrips(depth: PixelBuffer.Depth, sourceHeld: Bool) -> DeviceStripLayout?
    /// The graph this backend runs in place of `graph`, computing the same
    /// pixels (the CPU leaves out the passes it would only copy).
    func prepared(_ graph: PassGraph) -> PassGraph
    /// The most work one submission to the device should carry, in taps (output pixels × ``RenderPass/tapsPerPixel``),
    /// or nil for no bound (the CPU, which reports its progress as it goes). A submission is waited for whole, and
    /// nothing is known of its progress meanwhile: unbounded, one strip of a blur σ 200 on lavapipe took 40–80 s,
    /// and the stall watchdog stopped a job that worked.
    var submissionTaps: Int? { get }
}

extension PassBackend {
    /// `graph` itself: a device runs every pass it was given.
    package func prepared(_ graph: PassGraph) -> PassGraph { graph }

    /// Strips in host memory.
    package func deviceStrips(depth: PixelBuffer.Depth, sourceHeld: Bool) -> DeviceStripLayout? { nil }

    /// No bound.
    package var submissionTaps: Int? { nil }
}
