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
        let blurred = BlurKernel.add(builder.current, sigma: sigma, premultiplyInput: true, unpremultiplyOutput: true,
                                     to: &builder)
        builder.move(to: blurred, width: w, height: h)
    }
}
