import CColor
import Foundation
public import ImageCore

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

    /// Loads the profiles; throws ``ColorError`` naming a profile that cannot be used.
    public init(_ conversion: ColorConversion) throws(ColorError) {
        self.conversion = conversion
        let target = try Self.open(conversion.target, role: "--profile")
        guard let input = try? Self.open(conversion.inputProfile, role: "--input-profile") else {
            ccolor_profile_close(target)
            throw ColorError.unusableProfile(role: "--input-profile", name: conversion.inputProfile.description,
                                             reason: "lcms2 cannot read it as an RGB profile")
        }
        self.target = target
        self.fallbackInput = input
        do {
            tag = try Self.profile(target, name: Self.tagName(conversion.target))
        } catch {
            ccolor_profile_close(target)
            ccolor_profile_close(input)
            throw error
        }
    }

    deinit {
        ccolor_profile_close(target)
        ccolor_profile_close(fallbackInput)
    }

    /// Converts `image` from its embedded profile (or the input profile) into
    /// the target, and makes the target's profile the one of `metadata`.
    /// Returns warnings (an embedded profile lcms2 refuses, a gray one).
    public func convert(_ image: inout PixelBuffer, metadata: inout ImageMetadata) -> [String] {
        var warnings: [String] = []
        var source: ccolor_profile? = nil
        if let embedded = metadata.colorProfile?.bytes {
            source = embedded.withUnsafeBytes { ccolor_profile_open($0.baseAddress, $0.count) }
            if source == nil {
                warnings.append("iCCP: lcms2 cannot read the embedded profile; converted from \(conversion.inputProfile) instead")
            } else if ccolor_profile_is_rgb(source) == 0 {
                warnings.append("iCCP: the embedded profile is not RGB; converted from \(conversion.inputProfile) instead")
                ccolor_profile_close(source)
                source = nil
            }
        }
        defer { if let source { ccolor_profile_close(source) } }
        let intent: Int32 = switch conversion.intent {
        case .perceptual: CCOLOR_PERCEPTUAL
        case .relative: CCOLOR_RELATIVE
        case .saturation: CCOLOR_SATURATION
        case .absolute: CCOLOR_ABSOLUTE
        }
        let transform = ccolor_transform_create(source ?? fallbackInput, target, Int32(image.depth.rawValue), intent,
                                                conversion.intent == .relative ? 1 : 0)
        guard let transform else {
            warnings.append("lcms2 cannot link the input profile to \(conversion.target); colours left as they were")
            return warnings
        }
        defer { ccolor_transform_close(transform) }
        let count = image.pixelCount
        image.bytes.withUnsafeMutableBytes { ccolor_transform_apply(transform, $0.baseAddress, count) }
        metadata.replaceColorProfile(with: tag)
        return warnings
    }

    private static func open(_ profile: ColorConversion.Profile, role: String) throws(ColorError) -> ccolor_profile {
        let handle: ccolor_profile?
        switch profile {
        case .srgb: handle = ccolor_profile_srgb()
        case .displayP3: handle = ccolor_profile_display_p3()
        case .file(let path):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .unusableProfile(role: role, name: path, reason: "cannot read the file")
            }
            handle = data.withUnsafeBytes { ccolor_profile_open($0.baseAddress, $0.count) }
        }
        guard let handle else {
            throw .unusableProfile(role: role, name: profile.description, reason: "lcms2 cannot read it as an ICC profile")
        }
        guard ccolor_profile_is_rgb(handle) != 0 else {
            ccolor_profile_close(handle)
            throw .unusableProfile(role: role, name: profile.description, reason: "it is not an RGB profile")
        }
        return handle
    }

    private static func tagName(_ profile: ColorConversion.Profile) -> String {
        switch profile {
        case .srgb: "sRGB"
        case .displayP3: "Display P3"
        case .file(let path): String(URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent.prefix(79))
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
