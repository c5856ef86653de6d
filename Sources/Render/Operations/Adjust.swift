/// `adjust`: tone and color, per pixel, alpha kept. Applied in this order:
/// exposure (×2^stops), brightness (added), contrast (around ½), saturation
/// (around Rec. 709 luma), gamma (`c^(1/gamma)`: above 1 brightens, as in
/// ImageMagick); the result is clamped to 0…1.
public struct Adjust: Sendable, Equatable, Codable {
    /// Added to each color channel (0…1 scale); 0 = none.
    public var brightness: Double
    /// Multiplier of the distance from mid-gray; 1 = none.
    public var contrast: Double
    /// Multiplier of the distance from the pixel's luma; 1 = none, 0 = grayscale.
    public var saturation: Double
    /// Exposure change in stops; 0 = none.
    public var exposure: Double
    /// Gamma; 1 = none.
    public var gamma: Double

    /// An adjustment; every parameter defaults to "none".
    public init(brightness: Double = 0, contrast: Double = 1, saturation: Double = 1, exposure: Double = 0, gamma: Double = 1) {
        self.brightness = brightness
        self.contrast = contrast
        self.saturation = saturation
        self.exposure = exposure
        self.gamma = gamma
    }

    /// What `grayscale` is: saturation 0.
    static let grayscale = Adjust(saturation: 0)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(brightness: try container.decodeIfPresent(Double.self, forKey: .brightness) ?? 0,
                  contrast: try container.decodeIfPresent(Double.self, forKey: .contrast) ?? 1,
                  saturation: try container.decodeIfPresent(Double.self, forKey: .saturation) ?? 1,
                  exposure: try container.decodeIfPresent(Double.self, forKey: .exposure) ?? 0,
                  gamma: try container.decodeIfPresent(Double.self, forKey: .gamma) ?? 1)
    }

    func validate() throws(RenderError) {
        try ParameterRanges.brightness.check(brightness, "adjust", "brightness")
        try ParameterRanges.factor.check(contrast, "adjust", "contrast")
        try ParameterRanges.factor.check(saturation, "adjust", "saturation")
        try ParameterRanges.exposure.check(exposure, "adjust", "exposure")
        try ParameterRanges.gamma.check(gamma, "adjust", "gamma")
    }

    func lower(into builder: inout PassBuilder) {
        builder.advance(AdjustKernel.pass(builder.current, self, width: builder.width, height: builder.height))
    }
}
