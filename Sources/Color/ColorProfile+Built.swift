import CColor
public import ImageCore
import Locking

/// Profiles built lately, by what they were built of: a batch's PNGs share a few gAMA and cHRM values,
/// and lcms2 builds and serializes a profile in about 25 µs.
private let builtProfiles = BoundedCache<[Double], ColorProfile?>(capacity: 32)

extension ColorProfile {
    /// An RGB profile of a white point, primaries and a transfer curve, dated 2000-01-01 so that
    /// every run builds the same bytes (``ColorConverter/undate(_:)``); nil when lcms2 cannot build
    /// it (primaries that span no colours).
    ///
    /// What PNG's gAMA and cHRM say where no ICC profile does, made a profile: JPEG and WebP have no
    /// such chunks, so an output in them carries the profile, and `--profile` converts from it (as
    /// browsers read those chunks; libvips and ImageMagick leave them aside).
    /// - Parameters:
    ///   - white: the white point's chromaticity, x and y.
    ///   - primaries: red, green and blue, x and y each.
    ///   - gamma: the decoding exponent (linear = value^gamma); nil for the sRGB curve.
    ///   - description: the profile's description, and its name.
    public static func rgb(white: [Double], primaries: [Double], gamma: Double?, description: String) -> ColorProfile? {
        guard white.count == 2, primaries.count == 6 else { return nil }
        // The description follows from the numbers (the chunks' words), so they alone are the key.
        return builtProfiles.value(for: white + primaries + [gamma ?? 0]) {
            guard let handle = ccolor_profile_rgb(white, primaries, gamma ?? 0, description) else { return nil }
            defer { ccolor_profile_close(handle) }
            guard var profile = try? ColorConverter.profile(handle, name: description) else { return nil }
            ColorConverter.undate(&profile)
            return profile
        }
    }
}
