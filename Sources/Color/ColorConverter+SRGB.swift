import CColor
public import ImageCore
import Locking

/// What ``ColorConverter/changesColoursWhenDropped(_:)`` found of recent profiles: the check builds an lcms2
/// transform (about 5 ms), and a batch's images share a few profiles.
private let droppedProfiles = BoundedCache<[UInt8], Bool>(capacity: 32)

extension ColorConverter {
    /// Whether an image tagged with the ICC `profile` would look different
    /// untagged (as sRGB) and can be converted: the profile is RGB or gray,
    /// lcms2 reads it, and it moves some colour of a 9 × 9 × 9 grid (each
    /// channel 0, 32, …, 255; for gray, the 256 grays) by more than one level in
    /// sRGB at 8 bits, relative intent. A profile lcms2 cannot read, or one of
    /// another space, is not converted from (false).
    ///
    /// Decision: compare what the profile does, not its name or bytes — an
    /// "sRGB IEC61966-2.1" from a camera, one from a scanner and lcms2's own
    /// differ in bytes and agree in colours. 729 pixels cost well under a
    /// millisecond, but building the transform about 5 ms (3,000 small PNGs
    /// with gAMA took 16.6 s under `--keep exif`, 1.75 s before their profile
    /// was built): a profile's answer is kept.
    public static func changesColoursWhenDropped(_ profile: ColorProfile) -> Bool {
        droppedProfiles.value(for: profile.bytes) { changesColours(profile) }
    }

    private static func changesColours(_ profile: ColorProfile) -> Bool {
        guard let source = profile.bytes.withUnsafeBytes({ ccolor_profile_open($0.baseAddress, $0.count) }) else {
            return false
        }
        defer { ccolor_profile_close(source) }
        let gray = ccolor_profile_is_gray(source) != 0
        guard ccolor_profile_is_rgb(source) != 0 || gray, let srgb = ccolor_profile_srgb() else { return false }
        defer { ccolor_profile_close(srgb) }
        guard let transform = ccolor_transform_create(source, srgb, 8, CCOLOR_RELATIVE, 1) else { return false }
        defer { ccolor_transform_close(transform) }
        var grid: [UInt8] = []
        if gray {
            for level in 0...255 { grid += [UInt8(level), UInt8(level), UInt8(level), 255] }
        } else {
            let levels = stride(from: 0, through: 256, by: 32).map { UInt8(min($0, 255)) }
            for r in levels { for g in levels { for b in levels { grid += [r, g, b, 255] } } }
        }
        var mapped = grid
        mapped.withUnsafeMutableBytes { ccolor_transform_apply(transform, $0.baseAddress, grid.count / 4) }
        // Within one level is lcms2's own rounding of an identity transform.
        return zip(grid, mapped).contains { abs(Int($0) - Int($1)) > 1 }
    }
}
