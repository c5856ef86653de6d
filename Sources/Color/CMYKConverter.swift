import CColor
public import ImageCore

/// Converts CMYK rows (a CMYK or YCCK JPEG's, 0 = no ink) to RGBA in place, through the image's embedded CMYK
/// profile with lcms2: into sRGB (relative intent, as a viewer shows the file), or, under `--profile`, straight
/// into its target with its intent (``init(embedded:into:)``); without a usable profile, naively into sRGB
/// (R = (1 − C)(1 − K), …: no CMYK profile ships with Kiln). Not thread-safe: one per image.
///
/// Rejected (until 2026-11-28): always into sRGB, then `--profile` from there. A wider target (Display P3, Adobe
/// RGB) lost every CMYK colour outside sRGB (pure cyan came out 69,154,222 in P3, where vips' direct
/// conversion gives 0,152,222), and `--intent` never reached the CMYK step.
public final class CMYKConverter {
    private let transform: ccolor_transform?
    /// The profile the converted rows are in, and the image is tagged with.
    public let profile: ColorProfile
    /// Why the conversion is naive, when it is.
    public let warning: String?

    /// A converter from `embedded`, the image's profile (nil: none), into sRGB, or into the target of `converter`
    /// (`--profile`) with its intent; naive conversions always give sRGB.
    /// - Throws: `ColorError` when lcms2 cannot make sRGB (never with a working lcms2).
    public init(embedded: ColorProfile?, into converter: ColorConverter? = nil) throws(ColorError) {
        guard let srgb = ccolor_profile_srgb() else {
            throw .unusableProfile(role: "CMYK conversion", name: "sRGB", reason: "lcms2 cannot make it")
        }
        defer { ccolor_profile_close(srgb) }
        let source = embedded.flatMap { profile in profile.bytes.withUnsafeBytes { ccolor_profile_open($0.baseAddress, $0.count) } }
        defer { if let source { ccolor_profile_close(source) } }
        var made: ccolor_transform? = nil
        var intoTarget = false
        if let source, ccolor_profile_is_cmyk(source) != 0 {
            if let converter {
                made = converter.withTarget { target, intent, bpc in ccolor_transform_cmyk_create(source, target, intent, bpc) }
                intoTarget = made != nil
            }
            if made == nil {
                made = ccolor_transform_cmyk_create(source, srgb, CCOLOR_RELATIVE, 0)
            }
        }
        transform = made
        if let converter, intoTarget {
            profile = converter.targetProfile
        } else {
            var sRGB = try ColorConverter.profile(srgb, name: "sRGB")
            ColorConverter.undate(&sRGB)
            profile = sRGB
        }
        warning = transform != nil ? nil
            : "a CMYK image " + (embedded == nil ? "without a colour profile" : "whose profile lcms2 cannot use as CMYK")
                + " was converted to sRGB naively (no ink = white); its colours may be off"
    }

    deinit { ccolor_transform_close(transform) }

    /// Converts `count` pixels at `pixels` from CMYK to RGBA (alpha opaque), in place.
    public func convert(_ pixels: UnsafeMutableRawPointer, count: Int) {
        ccolor_cmyk_to_rgba(transform, pixels.assumingMemoryBound(to: UInt8.self), count)
    }
}
