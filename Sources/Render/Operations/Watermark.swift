internal import Compute

/// `watermark`: a PNG drawn over the image, `scale` times the image's width
/// wide (aspect kept, resampled with Lanczos-3 on premultiplied alpha), in a
/// corner `margin` pixels from the edges or centered, its alpha times `opacity`.
public struct Watermark: Sendable, Equatable, Codable {
    /// Where the mark goes.
    public enum Position: String, Sendable, Codable, CaseIterable {
        /// Top left.
        case tl
        /// Top right.
        case tr
        /// Bottom left.
        case bl
        /// Bottom right (the default).
        case br
        /// Centered (no margin).
        case center
    }

    /// The PNG file; relative paths are relative to the working directory (a
    /// recipe's to its own directory: `Recipe` resolves them).
    public var file: String
    /// Where the mark goes.
    public var position: Position
    /// Multiplies the mark's alpha, 0…1.
    public var opacity: Double
    /// Distance from the edges in pixels.
    public var margin: Int
    /// The mark's width relative to the image's, 0…1.
    public var scale: Double

    /// A watermark with SPEC §4.2's defaults.
    public init(file: String, position: Position = .br, opacity: Double = 1, margin: Int = 16, scale: Double = 0.2) {
        self.file = file
        self.position = position
        self.opacity = opacity
        self.margin = margin
        self.scale = scale
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(file: try container.decode(String.self, forKey: .file),
                  position: try container.decodeIfPresent(Position.self, forKey: .position) ?? .br,
                  opacity: try container.decodeIfPresent(Double.self, forKey: .opacity) ?? 1,
                  margin: try container.decodeIfPresent(Int.self, forKey: .margin) ?? 16,
                  scale: try container.decodeIfPresent(Double.self, forKey: .scale) ?? 0.2)
    }

    func validate() throws(RenderError) {
        try require(!file.isEmpty, "watermark", "file", "must not be empty")
        // The system reads a name up to its first NUL: "m.png\u0000x" opened m.png, and was recorded as given.
        try require(!file.contains("\0"), "watermark", "file", "must not hold a NUL character (no file name can)")
        try ParameterRanges.unit.check(opacity, "watermark", "opacity")
        try ParameterRanges.offset.check(margin, "watermark", "margin")
        try ParameterRanges.scale.check(scale, "watermark", "scale")
    }

    func lower(into builder: inout PassBuilder, mark: FloatImage) throws(RenderError) {
        let w = builder.width, h = builder.height
        let markWidth = max(1, Int((scale * Double(w)).rounded()))
        let markHeight = max(1, Int((Double(mark.height) * Double(markWidth) / Double(mark.width)).rounded()))
        let original = builder.constant(mark)
        let sized = try builder.resample(original, from: (mark.width, mark.height), to: (markWidth, markHeight),
                                         filter: .lanczos3, for: "watermark")
        let right = w - markWidth - margin, bottom = h - markHeight - margin
        let corner = switch position {
        case .tl: (margin, margin)
        case .tr: (right, margin)
        case .bl: (margin, bottom)
        case .br: (right, bottom)
        case .center: ((w - markWidth) / 2, (h - markHeight) / 2)
        }
        // A margin wider than the image puts the mark wholly outside it; clamped to where it
        // just misses, the result is the same and the origin fits the kernels' Int32.
        let origin = (min(max(corner.0, -markWidth), w), min(max(corner.1, -markHeight), h))
        if origin.0 >= w || origin.1 >= h || origin.0 + markWidth <= 0 || origin.1 + markHeight <= 0 {
            builder.notes.watermarkMissed = true
        }
        builder.advance(CompositeKernel.pass(builder.current, mark: sized, markSize: (markWidth, markHeight), origin: origin,
                                             opacity: opacity, width: w, height: h))
    }
}
