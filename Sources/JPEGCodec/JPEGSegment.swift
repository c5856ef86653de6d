import ImageCore

/// One APPn or COM segment of a JPEG header: its marker (0xE1 for APP1, 0xFE for COM) and its data, without length.
struct JPEGSegment: Equatable {
    /// 0xE0 + n.
    let marker: Int
    /// The segment's bytes after its length field.
    let data: [UInt8]

    /// APP1 holding EXIF: "Exif", two NULs, then a TIFF stream.
    static let exifSignature: [UInt8] = Array("Exif".utf8) + [0, 0]
    /// APP1 holding XMP: Adobe's namespace, NUL-terminated.
    static let xmpSignature: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    /// APP1 holding a portion of extended XMP (XMP part 3, 1.1.3.1), NUL-terminated.
    static let extendedXMPSignature: [UInt8] = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0]
    /// APP0 holding JFIF: "JFIF", NUL, then version, density unit, densities and thumbnail size.
    static let jfifSignature: [UInt8] = Array("JFIF".utf8) + [0]
    /// APP13 holding Photoshop image resources (IPTC among them): "Photoshop 3.0", NUL.
    static let photoshopSignature: [UInt8] = Array("Photoshop 3.0".utf8) + [0]
    /// APP2 holding a part of an ICC profile: "ICC_PROFILE", NUL, then the part's number and the count.
    static let iccSignature: [UInt8] = Array("ICC_PROFILE".utf8) + [0]
    /// A comment segment's marker.
    static let comment = 0xFE
    /// The text entry keyword a comment is read as and written from: PNG's registered "Comment" (as exiftool
    /// and ImageMagick map a JPEG's COM), so a comment goes from JPEG to PNG and back.
    static let commentKeyword = "Comment"
    /// The most data bytes a segment holds (its length field counts itself).
    static let maxData = 65533
    /// The most profile bytes an ICC segment holds.
    static let maxICCPart = maxData - iccSignature.count - 2

    private func payload(after signature: [UInt8]) -> ArraySlice<UInt8>? {
        data.starts(with: signature) ? data[signature.count...] : nil
    }

    /// The metadata of a header's segments: the first EXIF and XMP, the ICC
    /// profile put together from its parts (ICC.1 Annex B.4), or a warning
    /// when its parts do not make one.
    static func metadata(of segments: [JPEGSegment]) -> ImageMetadata {
        var metadata = ImageMetadata()
        var parts: [Int: ArraySlice<UInt8>] = [:]
        var declared: Set<Int> = []
        for segment in segments {
            switch segment.marker {
            case 0xE0:
                if metadata.resolution == nil, let jfif = segment.payload(after: jfifSignature) {
                    metadata.resolution = resolution(ofJFIF: jfif)
                }
            case 0xE1:
                if metadata.exif == nil, let exif = segment.payload(after: exifSignature) {
                    metadata.takeExif(Array(exif), from: "APP1")
                }
                if metadata.xmp == nil, let xmp = segment.payload(after: xmpSignature) { metadata.xmp = Array(xmp) }
                if let portion = segment.payload(after: extendedXMPSignature) {
                    metadata.extendedXMP = (metadata.extendedXMP ?? []) + [Array(portion)]
                }
            case 0xED:
                // Resources over a segment's 64 KiB continue in the next ones: joined, in file order.
                if let resources = segment.payload(after: photoshopSignature) { metadata.iptc = (metadata.iptc ?? []) + resources }
            case comment:
                // Text of no stated encoding: UTF-8 where it is that, else Latin-1 (what older writers meant); the NULs
                // C writers end it with left out. (A PNG output's text, which may hold no NUL, stops at an inner one.)
                var text = segment.data[...]
                while text.last == 0 { text = text.dropLast() }
                if let utf8 = String(validating: text, as: UTF8.self) {
                    metadata.text.append(TextEntry(keyword: commentKeyword, value: utf8))
                } else {
                    metadata.text.append(TextEntry(keyword: commentKeyword, value: String(text.map { Character(Unicode.Scalar($0)) }),
                                                   latin1: true))
                }
            case 0xE2:
                guard let part = segment.payload(after: iccSignature), part.count >= 2 else { continue }
                let number = Int(part[part.startIndex]), count = Int(part[part.startIndex + 1])
                declared.insert(count)
                if parts[number] == nil { parts[number] = part.dropFirst(2) }
            default:
                continue
            }
        }
        if let count = declared.first {
            if declared.count == 1, count > 0, (1...count).allSatisfy({ parts[$0] != nil }), parts.count == count {
                let bytes = (1...count).flatMap { parts[$0]! }
                if let damage = ColorProfile.damage(bytes[...], size: bytes.count) {
                    metadata.warnings.append("APP2: the ICC profile is damaged (\(damage)); the profile is left out")
                } else {
                    metadata.colorProfile = ColorProfile(name: "ICC profile", bytes: bytes)
                }
            } else {
                metadata.warnings.append("APP2: the ICC profile's parts do not fit together; the profile is left out")
            }
        }
        return metadata
    }

    /// The segments an output of `metadata` carries under `keep`, in the order
    /// readers expect (EXIF first, where JFIF would stand; else JFIF; JFIF then EXIF where a resolution is kept),
    /// and what was left out.
    /// `gray`: the file has one component, which only a gray profile describes.
    static func segments(for metadata: ImageMetadata?, keep: MetadataSelection,
                         gray: Bool = false) -> ([JPEGSegment], [DroppedMetadata]) {
        var segments: [JPEGSegment] = []
        var dropped: [DroppedMetadata] = []
        let metadata = metadata ?? ImageMetadata()
        if keep.contains(.exif), let exif = metadata.exif {
            if exifSignature.count + exif.count <= maxData {
                segments.append(JPEGSegment(marker: 0xE1, data: exifSignature + exif))
            } else {
                dropped.append(DroppedMetadata(type: "EXIF", reason: "over the 64 KiB a JPEG segment holds", isNotable: true))
            }
        }
        // JFIF 1.01, the density (else no unit, aspect 1:1), no thumbnail: where there is no EXIF, and before the EXIF
        // where there is a density to say (as libjpeg and libvips write them). Before, a JPEG's 300 dpi was lost.
        let density = keep.contains(.phys) ? metadata.resolution.flatMap(jfifDensity) : nil
        if segments.isEmpty || density != nil {
            segments.insert(JPEGSegment(marker: 0xE0, data: jfifSignature + [1, 1] + (density ?? [0, 0, 1, 0, 1]) + [0, 0]), at: 0)
        }
        let profileDrop = gray ? metadata.colorProfile?.grayOutputDrop : metadata.colorProfile?.colourOutputDrop
        if keep.contains(.icc), let drop = profileDrop {
            dropped.append(drop)
        } else if keep.contains(.icc), let profile = metadata.colorProfile {
            let count = (profile.bytes.count + maxICCPart - 1) / maxICCPart
            if count <= 255 {
                for number in 0..<count {
                    let part = profile.bytes[(number * maxICCPart)..<min(profile.bytes.count, (number + 1) * maxICCPart)]
                    segments.append(JPEGSegment(marker: 0xE2, data: iccSignature + [UInt8(number + 1), UInt8(count)] + part))
                }
            } else {
                dropped.append(DroppedMetadata(type: "ICC profile", reason: "over the 16 MiB a JPEG holds", isNotable: true))
            }
        }
        if keep.contains(.text), let xmp = metadata.xmp {
            if xmpSignature.count + xmp.count <= maxData {
                segments.append(JPEGSegment(marker: 0xE1, data: xmpSignature + xmp))
                // The packet's part past 64 KiB, after it, as it came: the packet names it by its digest.
                for portion in metadata.extendedXMP ?? [] where extendedXMPSignature.count + portion.count <= maxData {
                    segments.append(JPEGSegment(marker: 0xE1, data: extendedXMPSignature + portion))
                }
            } else {
                dropped.append(DroppedMetadata(type: "XMP", reason: "over the 64 KiB a JPEG segment holds (extended XMP is not written)",
                                               isNotable: true))
            }
        }
        if keep.contains(.text), let iptc = metadata.iptc {
            // Split over as many segments as it takes, as Photoshop writes resources past 64 KiB.
            let part = maxData - photoshopSignature.count
            for start in stride(from: 0, to: iptc.count, by: part) {
                segments.append(JPEGSegment(marker: 0xED, data: photoshopSignature + iptc[start..<min(iptc.count, start + part)]))
            }
        }
        if keep.contains(.text) {
            // Comments (a JPEG's COM, a PNG's "Comment") as COM segments, each in one; the other entries have no place.
            for entry in metadata.text where entry.keyword == commentKeyword {
                let scalars = entry.value.unicodeScalars
                let bytes = entry.latin1 && scalars.allSatisfy({ $0.value <= 0xFF }) ? scalars.map { UInt8($0.value) }
                    : Array(entry.value.utf8)
                if bytes.count <= maxData {
                    segments.append(JPEGSegment(marker: comment, data: bytes))
                } else {
                    dropped.append(DroppedMetadata(type: "comment", reason: "over the 64 KiB a JPEG segment holds", isNotable: true))
                }
            }
            if metadata.text.contains(where: { $0.keyword != commentKeyword }) {
                // Said, once a job: what the author put in a PNG's Title, Author or Description goes (as with
                // vips and ImageMagick), which a user must not learn from the file alone.
                dropped.append(DroppedMetadata(type: "text", reason: "a JPEG output keeps XMP and comments (a PNG's Comment "
                                               + "text), not a PNG's other text entries (Title, Author, Description, …)",
                                               isNotable: true))
            }
        }
        return (segments, dropped)
    }

    /// The resolution a JFIF header states (its data after the signature): dots per inch or per centimetre, in
    /// pixels per metre, or an aspect ratio alone (unit 0; before, it was dropped and outputs said 1:1); nil for
    /// square pixels without a unit (every plain JFIF's 1:1, nothing to say) or a density of 0.
    static func resolution(ofJFIF jfif: ArraySlice<UInt8>) -> Resolution? {
        guard jfif.count >= 7 else { return nil }
        let at = jfif.startIndex, unit = jfif[at + 2]
        let x = Int(jfif[at + 3]) << 8 | Int(jfif[at + 4]), y = Int(jfif[at + 5]) << 8 | Int(jfif[at + 6])
        guard x > 0, y > 0 else { return nil }
        switch unit {
        case 1: return Resolution(x: Int((Double(x) / 0.0254).rounded()), y: Int((Double(y) / 0.0254).rounded()))
        case 2: return Resolution(x: x * 100, y: y * 100)
        case 0 where x != y: return Resolution(x: x, y: y, perMetre: false)
        default: return nil
        }
    }

    /// JFIF's unit and densities for `resolution`: dots per inch where that says it (300 dpi is 11811 pixels per
    /// metre, which reads back as 300), else per centimetre where that is whole, else the nearest dots per inch;
    /// an aspect ratio alone in its lowest terms, without a unit; nil where no 16-bit density says it.
    static func jfifDensity(_ resolution: Resolution) -> [UInt8]? {
        func encoded(_ unit: UInt8, _ x: Int, _ y: Int) -> [UInt8]? {
            guard (1...65535).contains(x), (1...65535).contains(y) else { return nil }
            return [unit, UInt8(x >> 8), UInt8(x & 0xFF), UInt8(y >> 8), UInt8(y & 0xFF)]
        }
        if !resolution.perMetre {
            func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
            let common = max(1, gcd(resolution.x, resolution.y))
            return encoded(0, resolution.x / common, resolution.y / common)
        }
        let inch = [resolution.x, resolution.y].map { Int((Double($0) * 0.0254).rounded()) }
        if inch.map({ Int((Double($0) / 0.0254).rounded()) }) == [resolution.x, resolution.y] {
            return encoded(1, inch[0], inch[1])
        }
        if resolution.x % 100 == 0, resolution.y % 100 == 0 { return encoded(2, resolution.x / 100, resolution.y / 100) }
        return encoded(1, inch[0], inch[1])
    }

    /// The segment as it stands in a file: marker, length, data.
    var encoded: [UInt8] {
        let length = data.count + 2
        return [0xFF, UInt8(marker), UInt8(length >> 8), UInt8(length & 0xFF)] + data
    }
}
