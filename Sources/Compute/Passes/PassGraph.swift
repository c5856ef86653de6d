/// An image's render stage after lowering: passes in order, each reading the
/// source, constants or earlier outputs; the last pass's output (or the source
/// when there are none) is packed back to integers at the source's depth.
/// Built by the `Render` module per image; run by a `RenderBackend`.
public struct PassGraph: Sendable {
    /// Images the passes read besides the source (e.g. a decoded watermark).
    package var constants: [FloatImage]
    /// The passes, in order.
    package var passes: [RenderPass]

    /// The identity: unpack then pack.
    public init() {
        constants = []
        passes = []
    }

    /// A graph of `passes` over `constants`.
    package init(constants: [FloatImage], passes: [RenderPass]) {
        self.constants = constants
        self.passes = passes
    }

    /// The image that is packed into the output.
    package var result: ImageRef { passes.isEmpty ? .source : .pass(passes.count - 1) }

    /// The graph the CPU runs: every pass but the last whose CPU twin only
    /// forwards its input (``RenderPass/forwardsOnCPU``) is left out, its
    /// readers reading that input instead. The pixels are the same; the copy
    /// and its window are saved (blur σ 4 of the 16000×9000 photo: the copy
    /// was a tenth of the CPU time, all of it memory traffic).
    package var withoutCPUForwards: PassGraph {
        var kept: [RenderPass] = []
        // Each pass's output, as the new graph names it.
        var renamed: [ImageRef] = []
        func rename(_ image: ImageRef) -> ImageRef {
            if case .pass(let index) = image { return renamed[index] }
            return image
        }
        for (index, pass) in passes.enumerated() {
            if pass.forwardsOnCPU && index < passes.count - 1 {
                renamed.append(rename(pass.inputs[0].image))
            } else {
                kept.append(pass.reading(rename))
                renamed.append(.pass(kept.count - 1))
            }
        }
        return PassGraph(constants: constants, passes: kept)
    }

    /// The size of `image`, given the source's size.
    package func size(of image: ImageRef, source: (width: Int, height: Int)) -> (width: Int, height: Int) {
        switch image {
        case .source: source
        case .constant(let index): (constants[index].width, constants[index].height)
        case .pass(let index): (passes[index].width, passes[index].height)
        }
    }
}
