public import ImageCore

/// The PNG color types of IHDR.
public enum PNGColorType: Int, Sendable, Equatable, CaseIterable {
    /// Gray samples.
    case gray = 0
    /// Red, green, blue samples.
    case rgb = 2
    /// Palette indices (PLTE, optionally tRNS).
    case palette = 3
    /// Gray and alpha samples.
    case grayAlpha = 4
    /// Red, green, blue and alpha samples.
    case rgba = 6

    /// Whether the pixels carry an alpha channel (not counting tRNS).
    public var hasAlphaChannel: Bool { self == .grayAlpha || self == .rgba }
}

/// What a PNG declares about itself, read from IHDR and the chunks before IDAT.
public struct PNGHeader: Sendable, Equatable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Bits per sample in the file: 1, 2, 4, 8 or 16 (palette: bits per index).
    public var bitDepth: Int
    /// The file's color type.
    public var colorType: PNGColorType
    /// Whether the pixels are Adam7-interlaced.
    public var interlaced: Bool
    /// Whether a tRNS chunk gives transparency (palette alpha or a color key).
    public var hasTransparencyChunk: Bool

    /// Whether the decoded image can have alpha below the maximum.
    public var hasAlpha: Bool { colorType.hasAlphaChannel || hasTransparencyChunk }
    /// The depth of the canonical buffer this file decodes to.
    public var decodedDepth: PixelBuffer.Depth { bitDepth == 16 ? .sixteen : .eight }

    /// What the image core needs of it.
    public var imageHeader: ImageHeader {
        var header = ImageHeader(format: .png, width: width, height: height, depth: decodedDepth, hasAlpha: hasAlpha,
                                 isGray: colorType == .gray || colorType == .grayAlpha, decodesWhole: interlaced)
        // An interlaced palette image's decoder holds its indices whole, a byte a pixel, beside the canonical image.
        if interlaced && colorType == .palette { header.heldInputBytes = width * height }
        return header
    }

    /// Creates a header description.
    public init(width: Int, height: Int, bitDepth: Int, colorType: PNGColorType, interlaced: Bool,
                hasTransparencyChunk: Bool) {
        self.width = width
        self.height = height
        self.bitDepth = bitDepth
        self.colorType = colorType
        self.interlaced = interlaced
        self.hasTransparencyChunk = hasTransparencyChunk
    }
}
