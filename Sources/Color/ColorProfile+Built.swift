import CColor
public import ImageCore
import Locking

/// Profiles built lately, by what they were built of: a batch's PNGs share a few gAMA and cHRM values,
/// and lcms2 builds and serializes a profile in about 25 µs. The key starts with the kind (0 RGB, 1 gray).
private let builtProfiles = BoundedCache<[Double], ColorProfile?>(capacity: 32)

/// RGB profiles built from gray ones lately, by the gray profile's bytes (a gray profile is a few hundred).
private let profilesFromGray = BoundedCache<[UInt8], ColorProfile?>(capacity: 32)

/// A decoding transfer curve: encoded value (0–1) → linear light (0–1).
public enum TransferCurve: Hashable, Sendable {
    /// sRGB's (IEC 61966-2-1).
    case srgb
    /// linear = value^exponent.
    case gamma(Double)
    /// ICC's parametric curve of type 4: linear = (a value + b)^g from value d, else c value.
    case parametric(g: Double, a: Double, b: Double, c: Double, d: Double)

    /// What `ccolor_profile_rgb` takes: none for sRGB's, the exponent, or the five parameters.
    var values: [Double] {
        switch self {
        case .srgb: []
        case .gamma(let exponent): [exponent]
        case .parametric(let g, let a, let b, let c, let d): [g, a, b, c, d]
        }
    }
}

extension ColorProfile {
    /// An RGB profile of a white point, primaries and a transfer curve, dated 2000-01-01 so that
    /// every run builds the same bytes (``ColorConverter/undate(_:)``); nil when lcms2 cannot build
    /// it (primaries that span no colours).
    ///
    /// What PNG's gAMA and cHRM (or cICP) say where no ICC profile does, made a profile: JPEG and
    /// WebP have no such chunks, so an output in them carries the profile, and `--profile` converts
    /// from it (as browsers read those chunks; libvips and ImageMagick leave them aside).
    /// - Parameters:
    ///   - white: the white point's chromaticity, x and y.
    ///   - primaries: red, green and blue, x and y each.
    ///   - curve: the decoding curve of each channel.
    ///   - description: the profile's description (ASCII), and its name.
    public static func rgb(white: [Double], primaries: [Double], curve: TransferCurve, description: String) -> ColorProfile? {
        guard white.count == 2, primaries.count == 6 else { return nil }
        let values = curve.values
        // The description follows from the numbers (the chunks' words), so they alone are the key.
        return builtProfiles.value(for: [0] + white + primaries + values) {
            built(description) { ccolor_profile_rgb(white, primaries, values, Int32(values.count), description) }
        }
    }

    /// A gray profile of a white point and a transfer curve (what a gray PNG's gAMA or cICP says), dated
    /// as ``rgb(white:primaries:curve:description:)``'s; nil when lcms2 cannot build it.
    public static func gray(white: [Double], curve: TransferCurve, description: String) -> ColorProfile? {
        guard white.count == 2 else { return nil }
        let values = curve.values
        return builtProfiles.value(for: [1] + white + values) {
            built(description) { ccolor_profile_gray(white, values, Int32(values.count), description) }
        }
    }

    /// An RGB profile that shows this gray profile's neutrals as it does (its gray curve on each channel,
    /// sRGB's primaries and white), for gray pixels a watermark or a JPEG's `--background` made colour:
    /// a gray profile cannot tag them, and the colours were added after the rows a profile could convert.
    /// Described "<name> as RGB"; nil when this is no gray profile with a gray curve (one of lookup tables).
    public var rgbFromGray: ColorProfile? {
        guard colorSpace == "GRAY" else { return nil }
        return profilesFromGray.value(for: bytes) {
            // Only when built: reading the description opens the profile once more.
            let description = String(describedName.unicodeScalars.map { $0.isASCII ? Character($0) : "?" }) + " as RGB"
            guard let gray = bytes.withUnsafeBytes({ ccolor_profile_open($0.baseAddress, $0.count) }) else { return nil }
            defer { ccolor_profile_close(gray) }
            return Self.built(description) { ccolor_profile_rgb_from_gray(gray, description) }
        }
    }

    /// The bytes of the profile `build` makes, undated, named `description`; nil when it makes none.
    private static func built(_ description: String, _ build: () -> ccolor_profile?) -> ColorProfile? {
        guard let handle = build() else { return nil }
        defer { ccolor_profile_close(handle) }
        guard var profile = try? ColorConverter.profile(handle, name: description) else { return nil }
        ColorConverter.undate(&profile)
        return profile
    }
}

extension ImageMetadata {
    /// For colour pixels (gray ones have no primaries), where nothing else says what the colours are (no ICC profile, nothing in the file's own terms) but the
    /// EXIF says Adobe RGB (1998) as DCF does (``Exif/saysAdobeRGB``): the profile is built from Adobe RGB's
    /// primaries, D65 white and 563/256 curve, as PNG's gAMA and cHRM are made one. An output then carries it,
    /// `--profile` converts from it, and one that drops it converts to sRGB first. Before, such a camera's
    /// JPEG was read as sRGB, as vips and ImageMagick read it: converted, or shown by any viewer that reads
    /// profiles, its colours came out dull.
    public mutating func takeColoursFromExif() {
        guard colorProfile == nil, !saysSRGB, colourWithoutProfile == nil, exif.flatMap(Exif.init)?.saysAdobeRGB == true,
              let profile = ColorProfile.rgb(white: [0.3127, 0.3290], primaries: [0.64, 0.33, 0.21, 0.71, 0.15, 0.06],
                                             curve: .gamma(563.0 / 256.0), description: "Adobe RGB (1998) from EXIF")
        else { return }
        colorProfile = profile
        profileBuiltFrom = "Adobe RGB (EXIF's InteropIndex R03)"
    }
}
