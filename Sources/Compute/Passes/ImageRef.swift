/// An image a pass reads: the job's source (after unpack), a constant of the
/// graph (e.g. a watermark), or the output of an earlier pass.
package enum ImageRef: Sendable, Hashable {
    /// The image being rendered, as floats.
    case source
    /// `PassGraph.constants[index]`.
    case constant(Int)
    /// The output of `PassGraph.passes[index]`.
    case pass(Int)
}
