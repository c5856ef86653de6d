/// `sharpen`: an unsharp mask — `amount` times the difference from a
/// Gaussian blur of `sigma` is added; differences below `threshold` (0…1
/// scale) are left alone, those above twice it get the full amount, with a
/// linear ramp between; premultiplied color, alpha kept.
public struct Sharpen: Sendable, Equatable, Codable {
    /// Strength; 0 = none.
    public var amount: Double
    /// The blur's standard deviation in pixels.
    public var sigma: Double
    /// Differences below this are left alone (0…1).
    public var threshold: Double

    /// An unsharp mask.
    public init(amount: Double, sigma: Double = 1, threshold: Double = 0) {
        self.amount = amount
        self.sigma = sigma
        self.threshold = threshold
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(amount: try container.decode(Double.self, forKey: .amount),
                  sigma: try container.decodeIfPresent(Double.self, forKey: .sigma) ?? 1,
                  threshold: try container.decodeIfPresent(Double.self, forKey: .threshold) ?? 0)
    }

    func validate() throws(RenderError) {
        try ParameterRanges.amount.check(amount, "sharpen", "amount")
        try ParameterRanges.sigma.check(sigma, "sharpen", "sigma")
        try ParameterRanges.unit.check(threshold, "sharpen", "threshold")
    }

    func lower(into builder: inout PassBuilder) {
        let w = builder.width, h = builder.height
        let blurred = BlurKernel.add(builder.current, sigma: sigma, premultiplyInput: true, unpremultiplyOutput: false,
                                     to: &builder)
        builder.advance(SharpenKernel.pass(builder.current, blurred: blurred, amount: amount, threshold: threshold,
                                           width: w, height: h))
    }
}
