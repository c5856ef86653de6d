/// One file format's reader and writer (SPEC §1): what a codec target
/// implements, and what the export layer picks by content from its registry.
/// Adding a format is adding a codec and one registry line.
public protocol ImageCodec: Sendable {
    /// The format it reads and writes.
    var format: ImageFormat { get }
    /// The bytes every file of this format starts with; nil where any byte stands (a WebP's RIFF size).
    var signature: [UInt8?] { get }
    /// Opens the file at `path`, streaming it, and reads its header; checks
    /// `limits` before anything image-sized exists.
    func reader(contentsOf path: String, limits: DecodingLimits) throws -> any ImageReader
    /// As ``reader(contentsOf:limits:)``, over a whole file in memory.
    func reader(bytes: [UInt8], limits: DecodingLimits) throws -> any ImageReader
    /// Reads only the header of the file at `path`, whatever its size.
    func header(contentsOf path: String) throws -> ImageHeader
    /// Throws where a file of this format cannot hold a `width × height` image (a WebP past 16383 pixels a
    /// side): asked before the image's memory is counted, so the job names the format's limit, not a memory
    /// budget that no `--memory` could meet.
    func checkSize(width: Int, height: Int) throws
    /// About the most bytes a writer of a `width × height` image at `depth` holds with `settings`.
    func writerBytes(width: Int, height: Int, depth: PixelBuffer.Depth, settings: WriteSettings) -> Int
    /// A writer of a `width × height` image at `depth`, writing the file to `output` as it encodes.
    func writer(width: Int, height: Int, depth: PixelBuffer.Depth, settings: WriteSettings,
                output: any EncodedOutput) throws -> any ImageWriter
    /// Whether two files of this format are the same work: the same image and
    /// blocks, their time stamps aside (two exports made at different times), or,
    /// with `tolerance` above 0, the same blocks and samples that differ by at
    /// most `tolerance` per 8-bit sample (`256 × tolerance` per 16-bit one): the
    /// same work rendered by another backend.
    func sameWork(_ a: [UInt8], _ b: [UInt8], tolerance: Int) -> Bool
}

extension ImageCodec {
    /// Bytes of a file's start that ``recognizes(_:)`` needs.
    public var signatureLength: Int { signature.count }

    /// Whether a file starting with `prefix` (its first ``signatureLength`` bytes, fewer for a shorter file) is
    /// in this format.
    public func recognizes(_ prefix: ArraySlice<UInt8>) -> Bool {
        prefix.count == signature.count && matchesSignature(prefix)
    }

    /// Whether `prefix`, a whole file shorter than the signature, is the signature's start: a file of this format
    /// cut inside it (a JPEG of two bytes), which no reader takes and which is this format's all the same.
    public func isCutInsideSignature(_ prefix: ArraySlice<UInt8>) -> Bool {
        !prefix.isEmpty && prefix.count < signature.count && matchesSignature(prefix)
    }

    /// Whether `prefix` begins as the signature does, its first two bytes at least: a file of this format whose
    /// start is damaged after them (a JPEG's SOI, then no marker).
    public func beginsSignature(_ prefix: ArraySlice<UInt8>) -> Bool {
        prefix.count >= 2 && matchesSignature(prefix.prefix(2))
    }

    private func matchesSignature(_ prefix: ArraySlice<UInt8>) -> Bool {
        zip(prefix, signature).allSatisfy { byte, expected in expected.map { $0 == byte } ?? true }
    }

    /// No limit but the pixels a job allows (`--max-pixels`).
    public func checkSize(width: Int, height: Int) throws {}

    /// ``sameWork(_:_:tolerance:)`` for a format without time stamps: the same bytes,
    /// or, with `tolerance` above 0, the same `layout` (what a file holds besides its
    /// coded pixels: metadata, coding options; nil where it does not parse) and samples
    /// of the same size within `tolerance`. Two files whose pixels agree may be other work.
    public func sameLayoutAndSamples(_ a: [UInt8], _ b: [UInt8], tolerance: Int,
                                     layout: ([UInt8]) -> [ArraySlice<UInt8>]?) -> Bool {
        if a == b { return true }
        guard tolerance > 0, let left = layout(a), let right = layout(b), left.elementsEqual(right) else { return false }
        func decode(_ bytes: [UInt8]) -> PixelBuffer? {
            guard let reader = try? reader(bytes: bytes, limits: DecodingLimits()), let image = try? reader.readAll(),
                  (try? reader.finish()) != nil else { return nil }
            return image
        }
        guard let first = decode(a), let second = decode(b), first.width == second.width,
              first.height == second.height, first.depth == second.depth else { return false }
        return zip(first.bytes, second.bytes).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
    }
}

/// How an output is written. Each codec reads the fields of its format and
/// ignores the others.
public struct WriteSettings: Sendable, Equatable {
    /// Compression level, 0 (none) … 9 (smallest); PNG's zlib level.
    public var level: Int
    /// The kinds of ancillary information kept.
    public var keep: MetadataSelection
    /// When the output was made (seconds since 1970, UTC): its time stamp,
    /// written when the source had one and `keep` has `.time`.
    public var time: Int64
    /// Lossy quality, 1–100 (JPEG, lossy WebP); nil: the format's default.
    public var quality: Int?
    /// A progressive JPEG.
    public var progressive: Bool
    /// JPEG chroma subsampling; nil: the default for the quality (``ChromaSubsampling/default(quality:)``).
    public var subsampling: ChromaSubsampling?
    /// Lossless WebP.
    public var lossless: Bool
    /// How hard libwebp works for a smaller WebP, 0 (fastest) to 6 (smallest): its method.
    public var effort: Int
    /// What alpha is flattened onto in a format without alpha (JPEG).
    public var background: RGBColor
    /// What the rows can hold, known before the first one (from the source and
    /// the operations), or nil when unknown: a writer that must choose its
    /// file's layout before the first row (a streaming PNG) needs it.
    public var content: RowContent?
    /// The most bytes a writer may hold, beyond what it holds streaming, to make a smaller file where it could
    /// stream (JPEG's optimised Huffman tables need every coefficient): what the job's memory leaves an image that
    /// runs alone. Beyond it, the writer streams (standard tables), rather than fail an image it can write. No
    /// bound by default.
    public var heldBytesLimit = Int.max

    /// Settings; level 6, everything kept, time 0, each format's defaults (WebP effort 4), a white background.
    public init(level: Int = 6, keep: MetadataSelection = .all, time: Int64 = 0, quality: Int? = nil,
                progressive: Bool = false, subsampling: ChromaSubsampling? = nil, lossless: Bool = false,
                effort: Int = 4, background: RGBColor = .white) {
        self.level = level
        self.keep = keep
        self.time = time
        self.quality = quality
        self.progressive = progressive
        self.subsampling = subsampling
        self.lossless = lossless
        self.effort = effort
        self.background = background
    }
}

/// What an image's rows can hold, as far as can be known before they are made.
public struct RowContent: Sendable, Equatable {
    /// Every pixel is gray (r = g = b).
    public var gray: Bool
    /// Some pixel may be less than opaque.
    public var alpha: Bool

    /// A description of the rows.
    public init(gray: Bool, alpha: Bool) {
        self.gray = gray
        self.alpha = alpha
    }
}

/// How a JPEG stores colour (`--subsample`).
public enum ChromaSubsampling: String, Sendable, Equatable, Codable, CaseIterable {
    /// Chroma at half the resolution each way.
    case s420 = "420"
    /// Chroma at full resolution.
    case s444 = "444"

    /// 4:2:0 below quality 90, 4:4:4 at or above (photographers' expectation:
    /// a high quality keeps colour edges too).
    public static func `default`(quality: Int) -> ChromaSubsampling { quality >= 90 ? .s444 : .s420 }
}

/// An 8-bit sRGB colour (`--background`).
public struct RGBColor: Sendable, Equatable, Codable, CustomStringConvertible {
    /// Red, green, blue.
    public var red, green, blue: UInt8

    /// A colour.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// White, the default background.
    public static let white = RGBColor(red: 255, green: 255, blue: 255)

    /// Parses `white`, `black`, `#RRGGBB` or `RRGGBB` (any case); nil otherwise.
    public init?(parsing text: String) {
        switch text.lowercased() {
        case "white": self = .white
        case "black": self.init(red: 0, green: 0, blue: 0)
        default:
            let hex = text.hasPrefix("#") ? String(text.dropFirst()) : text
            guard hex.count == 6, hex.allSatisfy(\.isHexDigit), let value = UInt32(hex, radix: 16) else { return nil }
            self.init(red: UInt8(value >> 16), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
        }
    }

    /// Whether it is a gray (red, green and blue equal).
    public var isNeutral: Bool { red == green && green == blue }

    /// `#RRGGBB`.
    public var description: String {
        "#" + [red, green, blue].map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined()
    }
}

/// An encoder taking rows (``RowSink``) and making one file, written to the
/// ``EncodedOutput`` it was made with.
public protocol ImageWriter: RowSink {
    /// Takes the ancillary information known before the first row (the
    /// source's leading metadata, described for the output): a writer that
    /// streams writes the blocks that stand before its pixel data now, and
    /// tells `progress` the fraction of the rows compressed as they arrive.
    /// Called once, before the first row; a writer that holds its rows keeps
    /// nothing.
    /// - Throws: the codec's or the output's error.
    func begin(metadata: ImageMetadata?, progress: EncodeProgress?) throws
    /// Completes the file once every row is written, with the blocks of
    /// `metadata` that the settings keep and that still hold for the output
    /// (the metadata is complete only once a reader has read its whole file),
    /// telling `progress` how much of the encoding is done as it goes (a
    /// writer that encoded the rows as they arrived has nothing left to tell).
    /// Returns what the file left out.
    /// - Throws: the codec's or the output's error.
    func finish(metadata: ImageMetadata?, progress: EncodeProgress?) throws -> [DroppedMetadata]
}

extension ImageWriter {
    /// Nothing to write before the pixels: the file is made at ``finish(metadata:progress:)``.
    public func begin(metadata: ImageMetadata?, progress: EncodeProgress?) throws {}

    /// ``finish(metadata:progress:)`` with no one to tell.
    public func finish(metadata: ImageMetadata?) throws -> [DroppedMetadata] {
        try finish(metadata: metadata, progress: nil)
    }
}
