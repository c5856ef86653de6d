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

    /// The size of `image`, given the source's size.
    package func size(of image: ImageRef, source: (width: Int, height: Int)) -> (width: Int, height: Int) {
        switch image {
        case .source: source
        case .constant(let index): (constants[index].width, constants[index].height)
        case .pass(let index): (passes[index].width, passes[index].height)
        }
    }
}
