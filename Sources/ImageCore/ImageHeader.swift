/// What a reader knows of an image before its first row (SPEC §4.1): enough to
/// plan its render and weigh its memory before anything image-sized exists.
public struct ImageHeader: Sendable, Equatable {
    /// The file format it is stored in.
    public var format: ImageFormat
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// The depth of the canonical rows it decodes to (16 only when the file has 16).
    public var depth: PixelBuffer.Depth
    /// Whether decoded pixels can have alpha below the maximum.
    public var hasAlpha: Bool
    /// Whether the file stores gray only (every decoded pixel has r = g = b).
    public var isGray: Bool
    /// Whether rows exist only once the whole image is decoded (Adam7
    /// interlacing): the reader then holds the image, in its canonical form.
    public var decodesWhole: Bool
    /// Set when the decoder shrank the image on load (JPEG's DCT scaling,
    /// ``ImageReader/reduce(toAtLeast:_:)``): `width × height` is then the
    /// reduced size, rounded up, and this the picture's own.
    public var shrunkFrom: ShrinkOnLoad?
    /// Bytes the reader itself holds while the image is read, beside the canonical rows (a WebP's file: libwebp
    /// decodes from memory; an interlaced palette PNG's indices), counted in the image's working set (an 8000×6000
    /// WebP's 13 MB were not).
    public var heldInputBytes = 0
    /// Whether the reader reads the whole file before its first row: a progressive JPEG (or one of a scan per
    /// component), whose every coefficient libjpeg holds (in ``heldInputBytes``). That reading is a part of the
    /// decode with no row to show for it: its progress is heard through ``ImageReader/observeFirstRead(_:)``.
    public var readsFileFirst = false
    /// Whether a format that codes lossy or lossless stores it lossless (a lossless WebP):
    /// an output in its own format (`--format same`) then stays lossless.
    public var isLossless = false

    /// A header.
    public init(format: ImageFormat, width: Int, height: Int, depth: PixelBuffer.Depth, hasAlpha: Bool,
                isGray: Bool = false, decodesWhole: Bool) {
        self.format = format
        self.width = width
        self.height = height
        self.depth = depth
        self.hasAlpha = hasAlpha
        self.isGray = isGray
        self.decodesWhole = decodesWhole
    }
}

/// How a decoder shrank an image on load: the stored size, and how many of the
/// decoded columns and rows the picture spans. JPEG's DCT scaling divides by a
/// factor: its rows cover `width / factor × height / factor` of the picture,
/// the last row and column only in part where the size is no multiple of the
/// factor (a 641-wide JPEG at 1/4 decodes 161 columns, the last a quarter of
/// one); libwebp's rescaler spreads the picture over every decoded pixel,
/// whatever the ratio. A resize maps them by that true extent, never by the
/// rounded-up count: the output has the size, and each pixel the place, it has
/// from the whole image.
public struct ShrinkOnLoad: Sendable, Hashable {
    /// The stored width in pixels.
    public var width: Int
    /// The stored height in pixels.
    public var height: Int
    /// How many decoded columns the picture spans.
    public var spanWidth: Double
    /// How many decoded rows the picture spans.
    public var spanHeight: Double

    /// A shrink of a `width × height` image by `factor` (2, 4 or 8), block by block.
    public init(width: Int, height: Int, factor: Int) {
        self.init(width: width, height: height, spanWidth: Double(width) / Double(factor),
                  spanHeight: Double(height) / Double(factor))
    }

    /// A shrink of a `width × height` image spread over `spanWidth × spanHeight` decoded pixels.
    public init(width: Int, height: Int, spanWidth: Double, spanHeight: Double) {
        self.width = width
        self.height = height
        self.spanWidth = spanWidth
        self.spanHeight = spanHeight
    }
}

/// A file format, named as users name it (`png`); its codec defines the value.
public struct ImageFormat: Sendable, Hashable, CustomStringConvertible {
    /// The lowercase name: `png`.
    public let name: String
    /// The extension outputs in this format get, without the dot: `png`.
    public let fileExtension: String
    /// How a sentence names it: `PNG`, `WebP`.
    public let title: String

    /// A format; its title defaults to the name in capitals.
    public init(name: String, fileExtension: String, title: String? = nil) {
        self.name = name
        self.fileExtension = fileExtension
        self.title = title ?? name.uppercased()
    }

    public var description: String { title }
}
