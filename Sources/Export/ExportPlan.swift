import Color
import ImageCore
import Render

/// What a job makes: the operations in order, and the output settings a recipe
/// may carry (compression, metadata, colour target: the job's concerns, not the render layer's).
/// Codable (the job's journal records it): `{"operations":[…],"level":6,"metadata":63}`
/// (`"autorotate":false` added under `--no-autorotate`, `"output":{…}` when a
/// format option differs from its default: ``OutputSettings``).
public struct ExportPlan: Sendable, Equatable, Codable {
    /// The operations, applied in this order.
    public var operations: [Operation]
    /// PNG compression level, 0–9.
    public var level: Int
    /// The kinds of ancillary information (colour profile, text, EXIF, …) outputs keep.
    public var metadata: MetadataSelection
    /// The colour profile outputs are converted to and tagged with; nil: colours as they are.
    public var color: ColorConversion?
    /// Whether each image's EXIF orientation is applied before the operations
    /// (SPEC §4.1; the output's EXIF then says 1). False (`--no-autorotate`,
    /// recipe `output.autorotate: false`): pixels and tag stay as they are.
    /// The plan holds this choice, not any image's rotation: an image's
    /// provenance digest is the same whatever orientation its file states.
    public var autorotate: Bool
    /// The output format and its options (`--format`, `--quality`, …).
    public var output: OutputSettings
    /// What the files the plan names (profiles, watermarks) held when the job started
    /// (``FileFingerprint/of(_:)``, set by the command that starts it): so the provenance digest
    /// tells another watermark by the same name apart, and a resume refuses a changed one. Empty
    /// where none is named, or in a plan made otherwise (a test's).
    public var files: [FileFingerprint] = []

    /// A plan.
    public init(operations: [Operation] = [], level: Int = 6, metadata: MetadataSelection = .all,
                color: ColorConversion? = nil, autorotate: Bool = true, output: OutputSettings = OutputSettings()) {
        self.operations = operations
        self.level = level
        self.metadata = metadata
        self.color = color
        self.autorotate = autorotate
        self.output = output
    }

    private enum CodingKeys: String, CodingKey {
        case operations, level, metadata, color, autorotate, output, files
    }

    /// The resize a decoder that can shrink on load (JPEG's DCT scaling) shrinks for: the first
    /// operation, unless its filter is `nearest`, which must pick single source pixels (pixel art),
    /// not the block averages a scaled decode makes (a 1/4 decode then nearest 125 wide differed
    /// from the full decode's by up to 181 levels). Nil when there is none.
    public var shrinkOnLoadResize: Resize? {
        guard case .resize(let resize)? = operations.first, resize.filter != .nearest else { return nil }
        return resize
    }

    /// Encodes the plan; `autorotate` only when false, so the default plan's
    /// JSON, and with it the provenance digest of every output recorded before
    /// the key existed, is unchanged.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(operations, forKey: .operations)
        try container.encode(level, forKey: .level)
        try container.encode(metadata, forKey: .metadata)
        try container.encodeIfPresent(color, forKey: .color)
        if !autorotate { try container.encode(false, forKey: .autorotate) }
        // Every format option is in the digest; the default settings leave the key out, so the
        // digests of outputs recorded before formats existed are unchanged.
        if output != OutputSettings() { try container.encode(output, forKey: .output) }
        // Likewise only where the plan names a file.
        if !files.isEmpty { try container.encode(files, forKey: .files) }
    }

    /// Decodes a plan (e.g. from a job's journal), checking every value as a
    /// recipe's are checked; a journal written before `metadata` existed keeps everything.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        operations = try container.decode([Operation].self, forKey: .operations)
        level = try container.decode(Int.self, forKey: .level)
        guard ParameterRanges.level.bounds.contains(level) else {
            throw DecodingError.dataCorruptedError(forKey: .level, in: container,
                                                   debugDescription: "must be \(ParameterRanges.level.text), not \(level)")
        }
        metadata = try container.decodeIfPresent(MetadataSelection.self, forKey: .metadata) ?? .all
        color = try container.decodeIfPresent(ColorConversion.self, forKey: .color)
        autorotate = try container.decodeIfPresent(Bool.self, forKey: .autorotate) ?? true
        output = try container.decodeIfPresent(OutputSettings.self, forKey: .output) ?? OutputSettings()
        files = try container.decodeIfPresent([FileFingerprint].self, forKey: .files) ?? []
    }
}

extension ExportPlan {
    /// Whether a WebP output of the input `header` describes is lossless: `--lossless`, or, under `--format same`,
    /// a lossless WebP input given no quality (`--quality`, a recipe's): before, it was written lossy at quality
    /// 80 without a word, in place too (37.8 dB, and less with each run). Shared by the job and the progress
    /// estimate, which weighed such an output at the lossy rate.
    public func writesLosslessWebP(of header: ImageHeader) -> Bool {
        output.lossless || (output.format == .same && header.format == .webp && header.isLossless && output.quality == nil)
    }

    /// Checks every parameter of the operations and that watermark files decode
    /// (by the codec their content names), as a job would bind them, before it starts.
    /// - Throws: the `RenderError` the job would meet.
    public func validate(maxPixels: Int) throws(RenderError) {
        _ = try RenderPipeline(operations: operations, maxPixels: maxPixels) { try ImageCodecs.decode(contentsOf: $0, limits: $1) }
    }
}
