import CColor
import Foundation
public import ImageCore
import Locking

/// Converts rendered images into a ``ColorConversion``'s target profile with
/// lcms2 and tags them with it (the profile replaces whatever defined the
/// source's colours). Runs on the CPU, after the render operations, before encoding.
/// Thread-safe: lcms2 transforms are built without a cache.
// Unchecked: lcms2 profile handles, immutable after init; transforms are made per call, without a cache.
public final class ColorConverter: @unchecked Sendable {
    /// What it does.
    public let conversion: ColorConversion
    private let target: ccolor_profile
    private let fallbackInput: ccolor_profile
    /// The profile every output is tagged with.
    private let tag: ColorProfile
    /// The conversions made lately, by the source's profile and depth: building an lcms2 transform takes
    /// about 2-5 ms, longer than a small image's whole export, and a batch's images share a few profiles.
    private let conversions = BoundedCache<ConversionKey, Conversion>(capacity: 32)

    private struct ConversionKey: Hashable, Sendable {
        let profile: [UInt8]?
        /// No profile, and the file says sRGB (``ImageCore/ImageMetadata/saysSRGB``).
        let saysSRGB: Bool
        let depth: PixelBuffer.Depth
        let gray: Bool
    }

    private struct Conversion: Sendable {
        let rows: RowConversion?
        let warnings: [String]
    }

    /// Loads the profiles; throws ``ColorError`` naming a profile that cannot be used.
    public init(_ conversion: ColorConversion) throws(ColorError) {
        self.conversion = conversion
        let (target, file) = try Self.open(conversion.target, role: "--profile")
        let input: ccolor_profile
        do {
            input = try Self.open(conversion.inputProfile, role: "--input-profile").handle
        } catch {
            ccolor_profile_close(target)
            throw error
        }
        self.target = target
        self.fallbackInput = input
        do {
            try Self.checkLinks(input: input, target: target, conversion)
            if let file {
                // The file's own bytes, as an embedded profile passed through is kept: lcms2's serialization of
                // what it read rewrote the header (platform, creator) and left a Profile ID that no longer matched.
                tag = ColorProfile(name: Self.tagName(conversion.target), bytes: file)
            } else {
                var tag = try Self.profile(target, name: Self.tagName(conversion.target))
                Self.undate(&tag)
                self.tag = tag
            }
        } catch {
            ccolor_profile_close(target)
            ccolor_profile_close(input)
            throw error
        }
    }

    /// Throws where lcms2 cannot convert from sRGB into `target` (blaming `--profile`) or from `input` into it
    /// (blaming `--input-profile`). lcms2 opens a profile cut short, its header and tag table read, and fails
    /// only when a transform needs the missing tags: such a `--profile` was taken, and every image was left
    /// unconverted and untagged with a warning blaming its own profile, the job exiting 0.
    private static func checkLinks(input: ccolor_profile, target: ccolor_profile, _ conversion: ColorConversion) throws(ColorError) {
        let bpc: Int32 = conversion.intent == .relative ? 1 : 0
        let intent = code(of: conversion.intent)
        for (source, role, name) in [(ccolor_profile_srgb(), "--profile", conversion.target.description),
                                     (input, "--input-profile", conversion.inputProfile.description)] {
            let transform = ccolor_transform_create(source, target, 8, intent, bpc)
            if source != input { ccolor_profile_close(source) }
            guard let transform else {
                throw .unusableProfile(role: role, name: name, reason: role == "--profile"
                    ? "lcms2 cannot convert into it (a damaged or incomplete profile, or one made only to read from)"
                    : "lcms2 cannot convert from it into \(conversion.target) (a damaged or incomplete profile)")
            }
            ccolor_transform_close(transform)
        }
    }

    deinit {
        ccolor_profile_close(target)
        ccolor_profile_close(fallbackInput)
    }

    /// The conversion of rows at `depth` from the profile `metadata` names (or
    /// the input profile) into the target, and the target's profile made the
    /// one of `metadata`; nil, the colours left as they are, when lcms2 cannot
    /// link even the input profile, or the rows are in the target already; `gray`: the rows are gray (a gray profile
    /// converts only those). Also the warnings (an embedded profile lcms2
    /// refuses, a gray one on colour rows, one that does not link). The
    /// profile is known before the pixels (PNG's iCCP precedes IDAT, JPEG's
    /// APP2 the frame, WebP's ICCP the image), so rows are converted as they
    /// stream to the encoder.
    public func rows(depth: PixelBuffer.Depth, gray: Bool, metadata: inout ImageMetadata) -> (RowConversion?, [String]) {
        // Already in the target (a CMYK JPEG converted straight into it as it was decoded): nothing to do.
        if let profile = metadata.colorProfile, profile.bytes == tag.bytes { return (nil, []) }
        let key = ConversionKey(profile: metadata.colorProfile?.bytes, saysSRGB: metadata.colorProfile == nil && metadata.saysSRGB,
                                depth: depth, gray: gray)
        let conversion = conversions.value(for: key) {
            makeConversion(from: key.profile, saysSRGB: key.saysSRGB, depth: depth, gray: gray)
        }
        if conversion.rows != nil { retag(&metadata) }
        return (conversion.rows, conversion.warnings)
    }

    /// The transform from `embedded` (or sRGB, where the file `saysSRGB` without a profile; else the input
    /// profile) into the target, and what to say of it; `gray`: the rows are gray, which a gray profile describes
    /// (from colour rows it would read one channel).
    private func makeConversion(from embedded: [UInt8]?, saysSRGB: Bool, depth: PixelBuffer.Depth, gray: Bool) -> Conversion {
        var warnings: [String] = []
        var source: ccolor_profile? = embedded == nil && saysSRGB ? ccolor_profile_srgb() : nil
        if let embedded {
            source = embedded.withUnsafeBytes { ccolor_profile_open($0.baseAddress, $0.count) }
            if source == nil {
                warnings.append("lcms2 cannot read the embedded ICC profile; converted from \(conversion.inputProfile) instead")
            } else if ccolor_profile_is_gray(source) != 0 && !gray {
                warnings.append("the embedded ICC profile is gray and the pixels are colour; converted from "
                                + "\(conversion.inputProfile) instead")
                ccolor_profile_close(source)
                source = nil
            } else if ccolor_profile_is_rgb(source) == 0 && ccolor_profile_is_gray(source) == 0 {
                warnings.append("the embedded ICC profile is neither RGB nor gray; converted from "
                                + "\(conversion.inputProfile) instead")
                ccolor_profile_close(source)
                source = nil
            }
        }
        defer { if let source { ccolor_profile_close(source) } }
        let intent = intentCode
        let bpc: Int32 = conversion.intent == .relative ? 1 : 0
        var transform = ccolor_transform_create(source ?? fallbackInput, target, Int32(depth.rawValue), intent, bpc)
        if transform == nil, source != nil {
            // The embedded profile reads but does not link (a tag lcms2 cannot use): converted as an image with
            // none, so that the output is still the target's, as --profile promises, not the source's unconverted.
            warnings.append("lcms2 cannot link the embedded ICC profile to \(conversion.target); converted from "
                            + "\(conversion.inputProfile) instead")
            transform = ccolor_transform_create(fallbackInput, target, Int32(depth.rawValue), intent, bpc)
        }
        guard let transform else {
            warnings.append("lcms2 cannot link the input profile to \(conversion.target); colours left as they were")
            return Conversion(rows: nil, warnings: warnings)
        }
        let neutral = gray && source.map { ccolor_profile_is_gray($0) != 0 } == true && keepsGrayNeutral
        return Conversion(rows: RowConversion(transform, neutral: neutral ? depth : nil), warnings: warnings)
    }

    /// Whether gray rows under a gray profile stay gray (r = g = b) in the target: true for the built-in targets,
    /// matrix-shapers whose channels share one curve (the result is then made exactly neutral), so a gray
    /// output stays gray: a gray JPEG converted to sRGB under `--keep none` was written with three components.
    public func keepsGrayRowsGray(under profile: ColorProfile?) -> Bool {
        profile?.colorSpace == "GRAY" && keepsGrayNeutral
    }

    private var keepsGrayNeutral: Bool { conversion.target == .srgb || conversion.target == .displayP3 }

    /// The profile every output is tagged with: the target's.
    public var targetProfile: ColorProfile { tag }

    /// Calls `body` with the target's lcms2 profile, the intent and whether black-point compensation is on
    /// (``CMYKConverter`` converts into the target with them).
    func withTarget<T>(_ body: (ccolor_profile, Int32, Int32) -> T) -> T {
        body(target, intentCode, conversion.intent == .relative ? 1 : 0)
    }

    /// lcms2's code of the intent.
    private var intentCode: Int32 { Self.code(of: conversion.intent) }

    private static func code(of intent: ColorConversion.Intent) -> Int32 {
        switch intent {
        case .perceptual: CCOLOR_PERCEPTUAL
        case .relative: CCOLOR_RELATIVE
        case .saturation: CCOLOR_SATURATION
        case .absolute: CCOLOR_ABSOLUTE
        }
    }

    /// Makes the target's profile the one of `metadata` (whose pixels were converted into it).
    public func retag(_ metadata: inout ImageMetadata) {
        metadata.takeConvertedProfile(tag)
    }

    /// The profile opened, and a file's ICC bytes (as long as its header says: bytes after them are not the profile's).
    private static func open(_ profile: ColorConversion.Profile, role: String) throws(ColorError)
        -> (handle: ccolor_profile, file: [UInt8]?) {
        let handle: ccolor_profile?
        var file: [UInt8]?
        switch profile {
        case .srgb: handle = ccolor_profile_srgb()
        case .displayP3: handle = ccolor_profile_display_p3()
        case .file(let path):
            let data: Data
            switch SmallFile.contents(of: path) {
            case .success(let bytes): data = bytes
            case .failure(let error): throw .unusableProfile(role: role, name: path, reason: "cannot read the file (\(error))")
            }
            // The header, the size it says (more than the file holds: cut short) and the tag table (a tag past the
            // end: libpng's readers drop such a profile, and the output reads as untagged), as embedded profiles are
            // checked; lcms2 opens some of these, and fails only on a tag a transform needs, or not at all.
            let bytes = [UInt8](data)
            if let damage = ColorProfile.damage(bytes[...], size: bytes.count) {
                throw .unusableProfile(role: role, name: path, reason: damage == "not an ICC profile"
                                       ? "lcms2 cannot read it as an ICC profile" : "the profile is damaged (\(damage))")
            }
            // ICC.1 §7.2.2: its size, big-endian, in the first four bytes; what follows is not the profile's.
            file = Array(bytes.prefix(bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }))
            handle = file!.withUnsafeBytes { ccolor_profile_open($0.baseAddress, $0.count) }
        }
        guard let handle else {
            throw .unusableProfile(role: role, name: profile.description, reason: "lcms2 cannot read it as an ICC profile")
        }
        guard ccolor_profile_is_rgb(handle) != 0 else {
            ccolor_profile_close(handle)
            throw .unusableProfile(role: role, name: profile.description, reason: "it is not an RGB profile")
        }
        return (handle, file)
    }

    private static func tagName(_ profile: ColorConversion.Profile) -> String {
        switch profile {
        case .srgb: "sRGB"
        case .displayP3: "Display P3"
        case .file(let path): String(URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent.prefix(79))
        }
    }

    /// Sets the creation date of a profile lcms2 built (bytes 24-35 of its header, ICC.1 §7.2.1: six
    /// big-endian 16-bit fields) to 2000-01-01 00:00:00. lcms2 dates what it builds with the time it
    /// built it, so every output tagged sRGB or Display P3 differed from one run to the next in its
    /// iCCP: a resume or a re-run could not make the same file. Only the tag's bytes: a profile
    /// read back from them converts with its matrix rounded to ICC's fixed point, which moved
    /// PngSuite's grays off gray (4 of 181 files, up to 18 of 65535).
    static func undate(_ profile: inout ColorProfile) {
        guard profile.bytes.count >= 128 else { return }
        for (index, field) in [2000, 1, 1, 0, 0, 0].enumerated() {
            profile.bytes[24 + 2 * index] = UInt8(field >> 8)
            profile.bytes[25 + 2 * index] = UInt8(field & 0xFF)
        }
    }

    /// The ICC bytes of `profile`, named `name`.
    static func profile(_ profile: ccolor_profile, name: String) throws(ColorError) -> ColorProfile {
        var size = 0
        guard ccolor_profile_save(profile, nil, &size) != 0, size > 0 else {
            throw .unusableProfile(role: "--profile", name: name, reason: "lcms2 cannot serialize it")
        }
        var bytes = [UInt8](repeating: 0, count: size)
        guard ccolor_profile_save(profile, &bytes, &size) != 0 else {
            throw .unusableProfile(role: "--profile", name: name, reason: "lcms2 cannot serialize it")
        }
        return ColorProfile(name: name, bytes: Array(bytes.prefix(size)))
    }
}

/// A colour profile that cannot be used; names the flag, the profile and the reason.
public enum ColorError: Error, Equatable, CustomStringConvertible {
    /// `role` is the flag (`--profile`, `--input-profile`).
    case unusableProfile(role: String, name: String, reason: String)

    /// "--profile wide.icc: it is not an RGB profile".
    public var description: String {
        switch self {
        case .unusableProfile(let role, let name, let reason): "\(role) \(name): \(reason)"
        }
    }
}

/// One lcms2 transform between two profiles, applied to canonical rows in place
/// (``ColorConverter/rows(depth:metadata:)``); alpha is copied, not converted.
// Unchecked: one lcms2 transform built without a cache: each pixel converts alone, from any thread.
public final class RowConversion: @unchecked Sendable {
    private let transform: ccolor_transform
    /// Gray rows into a space they stay neutral in: the result is made exactly neutral (at `depth`).
    private let neutral: PixelBuffer.Depth?

    init(_ transform: ccolor_transform, neutral: PixelBuffer.Depth? = nil) {
        self.transform = transform
        self.neutral = neutral
    }

    deinit { ccolor_transform_close(transform) }

    /// Converts `count` canonical pixels at `pixels`, in place.
    public func apply(_ pixels: UnsafeMutableRawPointer, count: Int) {
        ccolor_transform_apply(transform, pixels, count)
        if let neutral { ccolor_replicate_red(pixels, count, Int32(neutral.rawValue)) }
    }
}
