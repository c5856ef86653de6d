import Foundation
import ImageCore
import Render

/// A recipe file (SPEC §4.2): `{"operations":[…],"output":{"level":6}}`,
/// operations applied in the order listed. Watermark paths are relative to
/// the recipe's directory.
public struct Recipe: Sendable, Equatable, Codable {
    /// Output settings.
    public struct Output: Sendable, Equatable, Codable {
        /// PNG compression level, 0–9; nil: the default.
        public var level: Int?
        /// What ancillary information outputs keep; nil: everything.
        public var metadata: Metadata?
        /// Whether each image's EXIF orientation is applied (``ExportPlan/autorotate``); nil: yes.
        public var autorotate: Bool?
        /// The format and its options: `format`, `quality`, `progressive`, `subsample`,
        /// `lossless`, `effort`, `background`, as the flags of the same names.
        public var settings: OutputSettings

        private enum CodingKeys: String, CodingKey {
            case level, metadata, autorotate
        }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(known: ["level", "metadata", "autorotate", "format", "quality", "progressive",
                                                  "subsample", "lossless", "effort", "background"])
            let container = try decoder.container(keyedBy: CodingKeys.self)
            level = try container.decodeIfPresent(Int.self, forKey: .level)
            metadata = try container.decodeIfPresent(Metadata.self, forKey: .metadata)
            autorotate = try container.decodeIfPresent(Bool.self, forKey: .autorotate)
            settings = try OutputSettings(from: decoder)
        }

        public func encode(to encoder: any Encoder) throws {
            try settings.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(level, forKey: .level)
            try container.encodeIfPresent(metadata, forKey: .metadata)
            try container.encodeIfPresent(autorotate, forKey: .autorotate)
        }
    }

    /// `output.metadata`: `{"strip":true}` (keep only what defines colour) or
    /// `{"keep":["icc","exif","text","phys","time","other"]}`, as `--strip`
    /// and `--keep` on the command line.
    public struct Metadata: Sendable, Equatable, Codable {
        /// The kinds kept.
        public var selection: MetadataSelection

        private enum CodingKeys: String, CodingKey {
            case strip, keep
        }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(known: ["strip", "keep"])
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let strip = try container.decodeIfPresent(Bool.self, forKey: .strip)
            let keep = try container.decodeIfPresent([String].self, forKey: .keep)
            switch (strip, keep) {
            case (.some, .some):
                throw DecodingError.dataCorruptedError(forKey: .keep, in: container,
                                                       debugDescription: "give either strip or keep, not both")
            case (let strip?, nil):
                selection = strip ? .strip : .all
            case (nil, let keep?) where keep.isEmpty:
                selection = []  // A list of no kinds keeps none, as `"keep": ["none"]`.
            case (nil, let keep?):
                switch MetadataSelection.parse(keep.joined(separator: ",")) {
                case .success(let parsed): selection = parsed
                case .failure(let problem):
                    throw DecodingError.dataCorruptedError(forKey: .keep, in: container, debugDescription: problem.description)
                }
            case (nil, nil):
                selection = .all
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(MetadataSelection.names.filter { selection.contains($0.kind) }.map(\.name), forKey: .keep)
        }
    }

    /// The operations, in order.
    public var operations: [Render.Operation]
    /// Output settings; nil: the defaults.
    public var output: Output?

    private enum CodingKeys: String, CodingKey {
        case operations, output
    }

    /// Decodes a recipe; unknown keys (here, in `output` or in an operation) are errors.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(known: ["operations", "output"])
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // Omitted: none (a recipe of output settings alone, `{"output":{"format":"jpeg","quality":90}}`).
        operations = try container.decodeIfPresent([Render.Operation].self, forKey: .operations) ?? []
        output = try container.decodeIfPresent(Output.self, forKey: .output)
    }

    /// Reads and checks the recipe at `path`; throws `RenderError.invalidRecipe` naming the problem
    /// (unreadable file, bad JSON, unknown op, missing field, wrong type, value out of range).
    public static func load(contentsOf path: String) throws(RenderError) -> Recipe {
        let data: Data
        switch SmallFile.contents(of: path) {
        // As UTF-8: the decoder takes UTF-16 and UTF-32 without a mark, but not UTF-32 with one (refused as "a
        // number does not fit its value", with no number in it).
        case .success(let bytes): data = utf8(bytes)
        case .failure(let error): throw .invalidRecipe(path: path, problem: "cannot read the file (\(error.reason))")
        }
        var recipe: Recipe
        do {
            recipe = try JSONDecoder().decode(Recipe.self, from: data)
        } catch let error as DecodingError {
            throw .invalidRecipe(path: path, problem: looseness(in: data) ?? describe(error, in: data))
        } catch {
            throw .invalidRecipe(path: path, problem: "\(error)")
        }
        if let problem = looseness(in: data) {
            throw .invalidRecipe(path: path, problem: problem)
        }
        if let level = recipe.output?.level, !ParameterRanges.level.bounds.contains(level) {
            throw .invalidRecipe(path: path, problem: "output.level: must be \(ParameterRanges.level.text), not \(level)")
        }
        // Joined as written, not standardized: Foundation standardizes a relative URL's `..` past its own folders
        // as if from the root (`r/wa.json`'s "../in/m.png" became "/in/m.png"); the kernel resolves it as it stands.
        let directory = (path as NSString).deletingLastPathComponent
        recipe.operations = recipe.operations.map { operation in
            guard case .watermark(var watermark) = operation, !watermark.file.hasPrefix("/"), !directory.isEmpty else {
                return operation
            }
            watermark.file = directory + (directory.hasSuffix("/") ? "" : "/") + watermark.file
            return .watermark(watermark)
        }
        return recipe
    }
}
