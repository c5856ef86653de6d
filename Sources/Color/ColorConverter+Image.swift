import CColor
public import ImageCore

extension ImageMetadata {
    /// Tags pixels converted into `profile` with it, and makes the EXIF say so: sRGB where `profile`
    /// shows colours as sRGB does (``ColorConverter/changesColoursWhenDropped(_:)``), else uncalibrated
    /// (``describeColours(sRGB:profileName:)``).
    public mutating func takeConvertedProfile(_ profile: ColorProfile) {
        replaceColorProfile(with: profile)
        describeColours(sRGB: !ColorConverter.changesColoursWhenDropped(profile), profileName: profile.describedName)
    }
}

extension ColorConverter {
    /// `image`, whose colours `source` defines, converted into the colours of `target` (either nil: sRGB, as an
    /// image that says nothing of its colours is shown), relative intent with black-point compensation: what a
    /// watermark becomes before it is drawn on an image of `target`'s colours. Left as it is where the two show
    /// colours alike (a profile that changes no colour from sRGB's, ``changesColoursWhenDropped(_:)``, is sRGB
    /// here), or where lcms2 cannot read or link them; returns whether it was converted.
    @discardableResult
    public static func convert(_ image: inout PixelBuffer, from source: ColorProfile?, to target: ColorProfile?) -> Bool {
        func space(_ profile: ColorProfile?) -> ColorProfile? {
            profile.flatMap { changesColoursWhenDropped($0) ? $0 : nil }
        }
        let (from, to) = (space(source), space(target))
        guard from?.bytes != to?.bytes else { return false }
        func open(_ profile: ColorProfile?) -> ccolor_profile? {
            guard let profile else { return ccolor_profile_srgb() }
            return profile.bytes.withUnsafeBytes { ccolor_profile_open($0.baseAddress, $0.count) }
        }
        guard let input = open(from) else { return false }
        defer { ccolor_profile_close(input) }
        guard let output = open(to), ccolor_profile_is_rgb(output) != 0 else { return false }
        defer { ccolor_profile_close(output) }
        guard let transform = ccolor_transform_create(input, output, Int32(image.depth.rawValue), CCOLOR_RELATIVE, 1) else {
            return false
        }
        defer { ccolor_transform_close(transform) }
        let count = image.width * image.height
        image.bytes.withUnsafeMutableBytes { ccolor_transform_apply(transform, $0.baseAddress, count) }
        return true
    }
}
