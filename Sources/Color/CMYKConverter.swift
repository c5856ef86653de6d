import CColor
public import ImageCore

/// Converts CMYK rows (a CMYK or YCCK JPEG's, 0 = no ink) to sRGB RGBA in place,
/// through the image's embedded CMYK profile with lcms2 (relative intent), or,
/// without a usable one, naively (R = (1 − C)(1 − K), …: no CMYK profile ships
/// with Kiln). Not thread-safe: one per image.
public final class CMYKConverter {
    private let transform: ccolor_transform?
    /// The sRGB profile the converted image is tagged with.
    public let profile: ColorProfile
    /// Why the conversion is naive, when it is.
    public let warning: String?

    /// A converter from `embedded`, the image's profile (nil: none).
    /// - Throws: `ColorError` when lcms2 cannot make sRGB (never with a working lcms2).
    public init(embedded: ColorProfile?) throws(ColorError) {
        guard let srgb = ccolor_profile_srgb() else {
            throw .unusableProfile(role: "CMYK conversion", name: "sRGB", reason: "lcms2 cannot make it")
        }
        defer { ccolor_profile_close(srgb) }
        var profile = try ColorConverter.profile(srgb, name: "sRGB")
        ColorConverter.undate(&profile)
        self.profile = profile
        let source = embedded.flatMap { profile in profile.bytes.withUnsafeBytes { ccolor_profile_open($0.baseAddress, $0.count) } }
        defer { if let source { ccolor_profile_close(source) } }
        if let source, ccolor_profile_is_cmyk(source) != 0 {
            transform = ccolor_transform_cmyk_create(source, srgb, CCOLOR_RELATIVE)
        } else {
            transform = nil
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
