/// `blur`: a Gaussian of standard deviation `sigma` pixels on premultiplied
/// alpha (window ±⌈3σ⌉, edges repeated).
public struct Blur: Sendable, Equatable, Codable {
    /// Standard deviation in pixels, > 0.
    public var sigma: Double

    /// A blur.
    public init(sigma: Double) {
        self.sigma = sigma
    }

    func validate() throws(RenderError) {
        try require(sigma > 0 && sigma <= 1000, "blur: sigma must be > 0 and ≤ 1000, not \(sigma)")
    }

    func lower(into builder: inout PassBuilder) {
        let w = builder.width, h = builder.height
        let rows = builder.add(BlurKernel.pass(builder.current, vertical: false, sigma: sigma, width: w, height: h,
                                               premultiplyInput: true, unpremultiplyOutput: false))
        builder.advance(BlurKernel.pass(rows, vertical: true, sigma: sigma, width: w, height: h,
                                        premultiplyInput: false, unpremultiplyOutput: true))
    }
}
