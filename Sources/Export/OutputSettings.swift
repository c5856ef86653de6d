public import ImageCore
import JPEGCodec

/// The output format of a job and its options (SPEC §5 "Format options"):
/// `--format`, `--quality`, `--progressive`, `--subsample`, `--lossless`,
/// `--effort`, `--background`; a recipe's `output` carries the same fields. Every field that
/// bears on an output's format is part of the digest of its work (``bearing(on:)``): a re-export
/// with another quality is a conflict, not a skip; one with `--level 9` of a JPEG is the same work.
public struct OutputSettings: Sendable, Equatable, Codable {
    /// The format outputs are written in.
    public var format: OutputFormat
    /// Lossy quality 1–100; nil: the format's default (JPEG 85, WebP 80).
    public var quality: Int?
    /// Progressive JPEG.
    public var progressive: Bool
    /// JPEG chroma subsampling; nil: 4:2:0 below quality 90, 4:4:4 at or above.
    public var subsample: ChromaSubsampling?
    /// Lossless WebP.
    public var lossless: Bool
    /// How hard libwebp works for a smaller WebP, 0–6 (its method); nil: 4, libwebp's default.
    public var effort: Int?
    /// What alpha is flattened onto in a JPEG; nil: white.
    public var background: RGBColor?

    /// The defaults: each output in its input's format, each format's defaults.
    public init(format: OutputFormat = .same, quality: Int? = nil, progressive: Bool = false,
                subsample: ChromaSubsampling? = nil, lossless: Bool = false, effort: Int? = nil,
                background: RGBColor? = nil) {
        self.format = format
        self.quality = quality
        self.progressive = progressive
        self.subsample = subsample
        self.lossless = lossless
        self.effort = effort
        self.background = background
    }

    private enum CodingKeys: String, CodingKey {
        case format, quality, progressive, subsample, lossless, effort, background
    }

    /// Decodes settings (a journal's plan or a recipe's `output`), checking
    /// each value; a missing field takes its default.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        format = try container.decodeIfPresent(OutputFormat.self, forKey: .format) ?? .same
        quality = try container.decodeIfPresent(Int.self, forKey: .quality)
        if let quality, !Self.qualityRange.contains(quality) {
            throw DecodingError.dataCorruptedError(forKey: .quality, in: container,
                                                   debugDescription: "must be 1-100, not \(quality)")
        }
        progressive = try container.decodeIfPresent(Bool.self, forKey: .progressive) ?? false
        subsample = try container.decodeIfPresent(ChromaSubsampling.self, forKey: .subsample)
        lossless = try container.decodeIfPresent(Bool.self, forKey: .lossless) ?? false
        effort = try container.decodeIfPresent(Int.self, forKey: .effort)
        if let effort, !Self.effortRange.contains(effort) {
            throw DecodingError.dataCorruptedError(forKey: .effort, in: container, debugDescription: "must be 0-6, not \(effort)")
        }
        if let text = try container.decodeIfPresent(String.self, forKey: .background) {
            guard let color = RGBColor(parsing: text) else {
                throw DecodingError.dataCorruptedError(forKey: .background, in: container,
                                                       debugDescription: "not a colour (white, black or #RRGGBB): \(text)")
            }
            background = color
        }
    }

    /// Encodes the fields that differ from their defaults (`background` as `#RRGGBB`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if format != .same { try container.encode(format, forKey: .format) }
        try container.encodeIfPresent(quality, forKey: .quality)
        if progressive { try container.encode(true, forKey: .progressive) }
        try container.encodeIfPresent(subsample, forKey: .subsample)
        if lossless { try container.encode(true, forKey: .lossless) }
        try container.encodeIfPresent(effort, forKey: .effort)
        try container.encodeIfPresent(background?.description, forKey: .background)
    }

    /// What outputs are written as, for a subtitle: "PNG level 6", "JPEG quality 85 4:2:0",
    /// "WebP quality 80"; under `same`, each format among the `outputs` (their names), in that
    /// order: "PNG level 6, JPEG quality 85 4:2:0" (a folder of PNGs says only "PNG level 6").
    public func summary(level: Int, outputs: [String]) -> String {
        let png = "PNG level \(level)"
        let jpegQuality = quality ?? JPEGImageCodec.defaultQuality
        let jpeg = "JPEG quality \(jpegQuality)" + (progressive ? " progressive" : "")
            + " " + (subsample ?? .default(quality: jpegQuality)).label
        // Under `same`, a lossless WebP input stays lossless unless a quality is given (ExportJob).
        let webp = (lossless ? "WebP lossless"
            : "WebP quality \(quality ?? 80)" + (format == .same && quality == nil ? " (lossless inputs lossless)" : ""))
            + (effort.map { " effort \($0)" } ?? "")
        switch format {
        case .png: return png
        case .jpeg: return jpeg
        case .webp: return webp
        case .same:
            let present = Set(outputs.compactMap { ImageCodecs.format(byExtensionOf: $0) })
            let named = [(ImageFormat.png, png), (.jpeg, jpeg), (.webp, webp)].filter { present.contains($0.0) }.map(\.1)
            return named.isEmpty ? png : named.joined(separator: ", ")
        }
    }

    /// These settings as they bear on an output written in `written`, each default said: what a PNG output takes no
    /// option of, a JPEG's quality 85 given or not, its 4:2:0 below 90. Under them, `--level 9` of a JPEG, or
    /// `--quality 85`, is the same work (a kept journal took them for other options, a permanent conflict). The
    /// format itself is the output's (`--format jpeg` of a JPEG writes what `same` writes), but for WebP, where
    /// `same` keeps a lossless input lossless.
    func bearing(on written: ImageFormat) -> OutputSettings {
        switch written {
        case .jpeg:
            let quality = quality ?? JPEGImageCodec.defaultQuality
            return OutputSettings(format: .same, quality: quality, progressive: progressive,
                                  subsample: subsample ?? .default(quality: quality), background: background ?? .white)
        case .webp:
            return OutputSettings(format: format, quality: quality, lossless: lossless, effort: effort ?? 4)
        default:
            return OutputSettings()
        }
    }

    /// `--quality`'s range.
    public static let qualityRange = 1...100
    /// `--effort`'s range (libwebp's methods).
    public static let effortRange = 0...6

    /// What a writer is given: the job's level, metadata choice and time, and these options.
    func writeSettings(level: Int, keep: MetadataSelection, time: Int64) -> WriteSettings {
        WriteSettings(level: level, keep: keep, time: time, quality: quality, progressive: progressive,
                      subsampling: subsample, lossless: lossless, effort: effort ?? 4, background: background ?? .white)
    }
}

extension ChromaSubsampling {
    /// "4:2:0".
    var label: String { self == .s420 ? "4:2:0" : "4:4:4" }
}

/// `--format`: the format outputs are written in.
public enum OutputFormat: String, Sendable, Equatable, Codable, CaseIterable {
    /// Each output in its input's format (the default).
    case same
    case png
    case jpeg
    case webp
}

extension OutputFormat {
    /// How a sentence names the format: "PNG", "JPEG", "WebP" (its codec's title); `same`, "each input's format".
    public var title: String { ImageCodecs.format(of: self)?.title ?? "each input's format" }

    /// The format a user names: its value in any case, or `jpg` for JPEG (the extension its outputs get, and what
    /// sharp, vips and ImageMagick take); nil for anything else.
    public init?(named name: String) {
        let lowered = name.lowercased()
        guard let format = lowered == "jpg" ? .jpeg : OutputFormat(rawValue: lowered) else { return nil }
        self = format
    }
}

extension OutputFormat {
    /// Read as ``init(named:)`` reads a name (a recipe's `"jpg"`, `"PNG"`); written as its value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let format = OutputFormat(named: name) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Cannot initialize OutputFormat from invalid String value \(name)")
        }
        self = format
    }
}
