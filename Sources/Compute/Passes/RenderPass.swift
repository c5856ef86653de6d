/// One input of a pass: an image, and the part of it an output rectangle needs.
package struct PassInput: Sendable {
    /// The image read.
    package let image: ImageRef
    /// The input pixels that the output pixels in a rectangle read (before
    /// clipping to the input); the Vulkan backend binds only that span, so
    /// images larger than one storage-buffer binding are processed in tiles.
    package let footprint: @Sendable (PixelRect) -> PixelRect
    /// Whether successive rows of output read rows of input that never move
    /// up (false for rotate 90/180/270 and flip v): strip execution can then
    /// forget input rows above the current strip.
    package let isForward: Bool

    /// An input with its footprint.
    package init(_ image: ImageRef, isForward: Bool = true, footprint: @escaping @Sendable (PixelRect) -> PixelRect) {
        self.image = image
        self.isForward = isForward
        self.footprint = footprint
    }

    /// An input read at the output's own coordinates.
    package static func pointwise(_ image: ImageRef) -> PassInput {
        PassInput(image) { $0 }
    }
}

/// One data-parallel step of rendering (Halide's split between *what* and
/// *where*): an operation lowers to passes, and each backend runs a pass its
/// own way — the CPU through `cpu`, a GPU backend through the program it
/// maps `kernel` to, with `ints` and `floats` as its parameters (on Vulkan,
/// push constants: `Shaders/pass.glsl`).
package struct RenderPass: Sendable {
    /// The GPU kernel, by name.
    package let kernel: KernelID
    /// Output width.
    package let width: Int
    /// Output height.
    package let height: Int
    /// Binding 0, then binding 2 (an auxiliary input) when there is a second.
    package let inputs: [PassInput]
    /// The shader's integer parameters (at most 8).
    package let ints: [Int32]
    /// The shader's float parameters (at most 12).
    package let floats: [Float]
    /// A CPU kernel: fills `output` (whole rows of this pass's output) from
    /// views of the inputs that hold at least the footprint of those rows.
    package typealias CPUKernel = @Sendable (_ inputs: [FloatRows], _ output: FloatRows) -> Void
    /// The CPU kernel.
    package let cpu: CPUKernel
    /// For a CPU kernel that carries work from one chunk of an image to the
    /// next (the fused blur's rows already blurred across): makes the kernel
    /// one run — one image, its chunks from the top down — uses in place of
    /// `cpu`. nil: `cpu` for every run.
    package let cpuRun: (@Sendable () -> CPUKernel)?
    /// The fewest rows a chunk of this pass's output should have (1: any), for
    /// a kernel whose start-up costs rows (the fused blur's ring: 2·radius + 1);
    /// granted up to 4 × the chunk's bytes (`StripExecutor`).
    package let minimumChunkRows: Int
    /// For a pure copy of input pixels (remap), where output pixel (x, y) comes from in its one input: an integer
    /// affine map (a crop, turns and mirrors, composed), so a row's pixels come from evenly spaced ones; nil for
    /// a pass that computes. Both backends run a copy on the host in strip execution, where a device would only
    /// add transfers, and a schedule may run the last one on packed rows (``PackedCopy``).
    package let copiesFrom: (@Sendable (_ x: Int, _ y: Int) -> (x: Int, y: Int))?
    /// The CPU twin is the identity of the one input, of this pass's size (a
    /// GPU pass whose work the next pass's CPU kernel does, fused: blur_x).
    /// The CPU runs the graph without it (``PassGraph/withoutCPUForwards``).
    package let forwardsOnCPU: Bool

    /// A pass; see the properties.
    package init(kernel: KernelID, width: Int, height: Int, inputs: [PassInput], ints: [Int32] = [], floats: [Float] = [],
                 copiesFrom: (@Sendable (_ x: Int, _ y: Int) -> (x: Int, y: Int))? = nil, forwardsOnCPU: Bool = false, cpuRun: (@Sendable () -> CPUKernel)? = nil,
                 minimumChunkRows: Int = 1, cpu: @escaping CPUKernel) {
        precondition(ints.count <= 8 && floats.count <= 12 && (1...2).contains(inputs.count), "pass parameters do not fit")
        precondition(!forwardsOnCPU || inputs.count == 1, "a pass forwards its one input")
        precondition(copiesFrom == nil || inputs.count == 1, "a copy reads one input")
        self.kernel = kernel
        self.width = width
        self.height = height
        self.inputs = inputs
        self.ints = ints
        self.floats = floats
        self.copiesFrom = copiesFrom
        self.forwardsOnCPU = forwardsOnCPU
        self.cpuRun = cpuRun
        self.minimumChunkRows = minimumChunkRows
        self.cpu = cpu
    }

    /// Input pixels one output pixel reads, over its inputs (at least 1): the footprint of the middle pixel, before
    /// clipping (a blur's shader reads 2·radius + 1 taps at an edge too). What a pixel of the pass costs, by which
    /// a device bounds the work of one submission (``PassBackend/submissionTaps``).
    package var tapsPerPixel: Int {
        let middle = PixelRect(x: width / 2, y: height / 2, width: 1, height: 1)
        return max(1, inputs.reduce(0) { total, input in
            let footprint = input.footprint(middle)
            return total + max(0, footprint.width) * max(0, footprint.height)
        })
    }

    /// Whether the pass only copies pixels (``copiesFrom``).
    package var isCopy: Bool { copiesFrom != nil }

    /// The CPU kernel for a new run (see ``cpuRun``).
    package func cpuKernelForRun() -> CPUKernel {
        cpuRun?() ?? cpu
    }

    /// This pass reading `image(i)` where it read image i.
    func reading(_ image: (ImageRef) -> ImageRef) -> RenderPass {
        RenderPass(kernel: kernel, width: width, height: height,
                   inputs: inputs.map { PassInput(image($0.image), isForward: $0.isForward, footprint: $0.footprint) },
                   ints: ints, floats: floats, copiesFrom: copiesFrom, forwardsOnCPU: forwardsOnCPU, cpuRun: cpuRun,
                   minimumChunkRows: minimumChunkRows, cpu: cpu)
    }
}
