/// `blur`: a Gaussian of standard deviation `sigma` pixels on premultiplied
/// alpha (window ±⌈3σ⌉, edges repeated).
public struct Blur: Sendable, Equatable, Codable {
    /// Standard deviation in pixels (`ParameterRanges.sigma`).
    public var sigma: Double

    /// A blur.
    public init(sigma: Double) {
        self.sigma = sigma
    }

    func validate() throws(RenderError) {
        try ParameterRanges.sigma.check(sigma, "blur", "sigma")
    }

    func lower(into builder: inout PassBuilder) {
        let w = builder.width, h = builder.height
        let blurred = BlurKernel.add(builder.current, sigma: sigma, premultiplyInput: true, unpremultiplyOutput: true,
                                     to: &builder)
        builder.move(to: blurred, width: w, height: h)
    }
}
