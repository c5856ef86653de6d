import Foundation

/// One rendering operation of SPEC §4.2, as a value: what it computes is
/// defined once (its parameters here, its kernels in `Kernels/`); where it runs
/// (CPU or Vulkan) is the backend's business.
///
/// Codable as the recipe objects of SPEC §4.2: `{"op":"blur","sigma":2}`.
public enum Operation: Sendable, Equatable, Codable, CustomStringConvertible {
    /// Keeps a rectangle.
    case crop(Crop)
    /// Quarter turns clockwise.
    case rotate(Rotate)
    /// Mirrors.
    case flip(Flip)
    /// Resamples to a box.
    case resize(Resize)
    /// Tone and color.
    case adjust(Adjust)
    /// Gaussian blur.
    case blur(Blur)
    /// Unsharp mask.
    case sharpen(Sharpen)
    /// Rec. 709 luma in every color channel (saturation 0).
    case grayscale
    /// A PNG drawn over the image.
    case watermark(Watermark)

    /// The recipe's `op` names, in SPEC §4.2's (and the flags') order.
    public static let names = ["crop", "rotate", "flip", "resize", "adjust", "blur", "sharpen", "grayscale", "watermark"]

    /// Whether the operation only moves samples (a crop, a quarter turn, a mirror): every output sample is one of
    /// the source's, its value unchanged, so what the source says of its values (PNG's sBIT) still holds.
    public var onlyMovesSamples: Bool {
        switch self {
        case .crop, .rotate, .flip: true
        case .resize, .adjust, .blur, .sharpen, .grayscale, .watermark: false
        }
    }

    /// Whether the operation is a turn or a mirror (a rotation, a flip): it moves whole pixels, the picture's
    /// size kept or transposed.
    var isTurnOrMirror: Bool {
        switch self {
        case .rotate, .flip: true
        default: false
        }
    }

    /// The `op` name.
    public var name: String {
        switch self {
        case .crop: "crop"
        case .rotate: "rotate"
        case .flip: "flip"
        case .resize: "resize"
        case .adjust: "adjust"
        case .blur: "blur"
        case .sharpen: "sharpen"
        case .grayscale: "grayscale"
        case .watermark: "watermark"
        }
    }

    /// The keys of each op's recipe object besides `op` (SPEC §4.2); any other key is an error.
    static let parameters: [String: [String]] = [
        "crop": ["x", "y", "width", "height"],
        "rotate": ["degrees"],
        "flip": ["axis"],
        "resize": ["width", "height", "fit", "filter", "upscale"],
        "adjust": ["brightness", "contrast", "saturation", "exposure", "gamma"],
        "blur": ["sigma"],
        "sharpen": ["amount", "sigma", "threshold"],
        "grayscale": [],
        "watermark": ["file", "position", "opacity", "margin", "scale"],
    ]

    private enum Key: String, CodingKey {
        case op
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let op = try container.decode(String.self, forKey: .op)
        if let parameters = Self.parameters[op] {
            try decoder.rejectUnknownKeys(known: ["op"] + parameters)
        }
        switch op {
        case "crop": self = .crop(try Crop(from: decoder))
        case "rotate": self = .rotate(try Rotate(from: decoder))
        case "flip": self = .flip(try Flip(from: decoder))
        case "resize": self = .resize(try Resize(from: decoder))
        case "adjust": self = .adjust(try Adjust(from: decoder))
        case "blur": self = .blur(try Blur(from: decoder))
        case "sharpen": self = .sharpen(try Sharpen(from: decoder))
        case "grayscale": self = .grayscale
        case "watermark": self = .watermark(try Watermark(from: decoder))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .op, in: container,
                debugDescription: "unknown op \"\(op)\" (known: \(Self.names.joined(separator: ", ")))")
        }
        do {
            try validate()
        } catch {
            // Placed at the parameter itself, so a recipe error reads "operations[2].margin: must be …".
            guard case .invalidParameter(let parameter) = error else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
            }
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath + [AnyCodingKey(stringValue: parameter.key)],
                                                    debugDescription: parameter.problem))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(name, forKey: .op)
        switch self {
        case .crop(let crop): try crop.encode(to: encoder)
        case .rotate(let rotate): try rotate.encode(to: encoder)
        case .flip(let flip): try flip.encode(to: encoder)
        case .resize(let resize): try resize.encode(to: encoder)
        case .adjust(let adjust): try adjust.encode(to: encoder)
        case .blur(let blur): try blur.encode(to: encoder)
        case .sharpen(let sharpen): try sharpen.encode(to: encoder)
        case .grayscale: break
        case .watermark(let watermark): try watermark.encode(to: encoder)
        }
    }

    /// Throws `RenderError.invalidParameter` naming the first parameter out of
    /// range (`ParameterRanges`). The one check of every front end: flags, recipes,
    /// and a job's stored plan (decoding an `Operation` runs it).
    public func validate() throws(RenderError) {
        switch self {
        case .crop(let crop): try crop.validate()
        case .rotate(let rotate): try rotate.validate()
        case .resize(let resize): try resize.validate()
        case .adjust(let adjust): try adjust.validate()
        case .blur(let blur): try blur.validate()
        case .sharpen(let sharpen): try sharpen.validate()
        case .watermark(let watermark): try watermark.validate()
        case .flip, .grayscale: break
        }
    }

    /// The recipe object, e.g. `{"op":"blur","sigma":2}`.
    public var description: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? name
    }
}

/// Any key of a JSON object, for finding the ones a type does not know.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// Throws `DecodingError.dataCorrupted` at this object, naming its first key
    /// (in sorted order) that is not in `known`: a misspelled key must not be
    /// silently ignored (`{"op":"blur","sigma":2,"sigmaa":3}`).
    package func rejectUnknownKeys(known: [String]) throws {
        let keys = try container(keyedBy: AnyCodingKey.self).allKeys.map(\.stringValue)
        guard let unknown = keys.filter({ !known.contains($0) }).sorted().first else { return }
        throw DecodingError.dataCorrupted(.init(
            codingPath: codingPath,
            debugDescription: "unknown key \"\(unknown)\" (known: \(known.joined(separator: ", ")))"))
    }
}
