import CColor
public import ImageCore

extension ColorProfile {
    /// What the profile calls itself (its description tag: "Adobe RGB (1998)"), where lcms2 reads one; else
    /// the name its file gave it (PNG's iCCP keyword; JPEG and WebP give none: "ICC profile").
    public var describedName: String {
        guard let handle = bytes.withUnsafeBytes({ ccolor_profile_open($0.baseAddress, $0.count) }) else { return name }
        defer { ccolor_profile_close(handle) }
        var text = [CChar](repeating: 0, count: 256)
        guard ccolor_profile_description(handle, &text, text.count) != 0 else { return name }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
