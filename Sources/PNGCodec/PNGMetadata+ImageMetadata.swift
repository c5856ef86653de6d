import Color
import CPNG
public import ImageCore

extension ImageFormat {
    /// Portable Network Graphics.
    public static let png = ImageFormat(name: "png", fileExtension: "png")
}

extension MetadataSelection {
    /// The kind a chunk type belongs to, or nil for a chunk never copied as
    /// it is (tRNS, written from the pixels; tIME, written anew; unknown
    /// unsafe-to-copy chunks).
    public static func kind(of chunk: PNGChunk) -> MetadataSelection? {
        switch chunk.type {
        case "iCCP", "sRGB", "gAMA", "cHRM", "cICP", "mDCv", "cLLi": .icc
        case "eXIf": .exif
        case "tEXt", "zTXt", "iTXt": .text
        case "pHYs": .phys
        case "tIME", "tRNS": nil
        case "sBIT", "bKGD", "sPLT", "hIST": .other
        default: chunk.isSafeToCopy ? .other : nil
        }
    }
}

extension PNGMetadata {
    /// The iTXt keyword under which XMP is stored (XMP specification part 3).
    static let xmpKeyword = "XML:com.adobe.xmp"

    /// The format-neutral form: each field read from its chunk, every chunk carried.
    public var imageMetadata: ImageMetadata {
        var metadata = ImageMetadata(warnings: warnings)
        metadata.dropsAnimation = dropsAnimation
        metadata.carried = CarriedMetadata(
            format: .png,
            blocks: chunks.map { MetadataBlock(kind: MetadataSelection.kind(of: $0), type: $0.type, data: $0.data,
                                               placement: $0.placement.rawValue) },
            sourceLayout: [sourceColorType.rawValue, sourceBitDepth])
        for chunk in chunks {
            let data = chunk.data
            switch chunk.type {
            case "iCCP" where metadata.colorProfile == nil:
                if let nul = data.firstIndex(of: 0), let bytes = profileBytes {
                    metadata.colorProfile = ColorProfile(name: Self.latin1(data[..<nul]), bytes: bytes)
                }
            case "eXIf" where metadata.exif == nil:
                metadata.exif = data
            case "pHYs" where data.count == 9 && data[8] <= 1:
                metadata.resolution = Resolution(x: Self.bigEndian(data[0..<4]), y: Self.bigEndian(data[4..<8]), perMetre: data[8] == 1)
            case "tIME":
                metadata.hasTime = true
            case "tEXt", "zTXt", "iTXt":
                guard let entry = Self.text(of: chunk) else { continue }
                if chunk.type == "iTXt" && entry.keyword == Self.xmpKeyword {
                    metadata.xmp = Array(entry.value.utf8)
                } else {
                    metadata.text.append(entry)
                }
            default:
                break
            }
        }
        // cICP comes before iCCP and sRGB too (PNG third edition §4.3): where it says what a profile can, it wins.
        let srgbChunk = chunks.contains { $0.type == "sRGB" }
        let ownProfile = metadata.colorProfile != nil || srgbChunk
        let cicp = chunks.first { $0.type == "cICP" && $0.data.count == 4 }
        let gammaOrChromaticities = chunks.contains { $0.type == "gAMA" || $0.type == "cHRM" }
        if let cicp, cicp.data.elementsEqual([1, 13, 0, 1]) {
            metadata.colorProfile = nil  // sRGB, whatever an iCCP beside it says
            metadata.saysSRGB = true
        } else if metadata.colorProfile == nil, cicp == nil,
                  srgbChunk || gammaOrChromaticities && Self.colourOtherThanSRGB(chunks) == nil {
            // An sRGB chunk, which comes before gAMA and cHRM (libpng and browsers: they are its fallback), or
            // gAMA and cHRM of sRGB's values.
            metadata.saysSRGB = true
        } else if !ownProfile || cicp != nil, let colour = Self.colourOtherThanSRGB(chunks) {
            if let profile = builtProfile(describing: colour) {
                metadata.colorProfile = profile
                metadata.profileBuiltFrom = colour
            } else if !ownProfile {
                metadata.colourWithoutProfile = colour
            } else {
                metadata.warnings.append("\(colour) comes first, and kiln cannot convert from it (HDR, narrow range or a "
                                         + "YCbCr matrix): a conversion, and a JPEG or WebP output, take the colours from "
                                         + "the ICC profile beside it")
            }
        }
        return metadata
    }

    /// The metadata a PNG output of `metadata` starts from: its carried chunks
    /// when they are PNG's, and a chunk for every field no carried chunk
    /// covers (a profile set by a colour conversion first, as iCCP leads).
    /// - Throws: `PNGError.outOfMemory` when a profile cannot be compressed.
    init(_ metadata: ImageMetadata) throws(PNGError) {
        let carried = metadata.carried?.format == .png ? metadata.carried : nil
        let own = carried?.blocks.map { block in
            PNGChunk(type: block.type, data: block.data,
                     placement: PNGChunk.Placement(rawValue: block.placement) ?? .afterImageData)
        } ?? []
        let covered = { (kind: MetadataSelection) in carried?.blocks.contains { $0.kind == kind } ?? false }
        var leading: [PNGChunk] = []
        var trailing: [PNGChunk] = []
        if let profile = metadata.colorProfile, !covered(.icc) {
            leading.append(PNGChunk(type: "iCCP", data: try Self.iccp(profile), placement: .beforePalette))
        }
        if let exif = metadata.exif, !covered(.exif) {
            trailing.append(PNGChunk(type: "eXIf", data: exif, placement: .beforeImageData))
        }
        if let resolution = metadata.resolution, !covered(.phys) {
            trailing.append(PNGChunk(type: "pHYs", data: Self.bigEndian(resolution.x) + Self.bigEndian(resolution.y) + [resolution.perMetre ? 1 : 0],
                                     placement: .beforeImageData))
        }
        if !covered(.text) {
            for entry in metadata.text { trailing.append(Self.textChunk(entry)) }
            if let xmp = metadata.xmp {
                trailing.append(Self.textChunk(TextEntry(keyword: Self.xmpKeyword, value: String(decoding: xmp, as: UTF8.self)),
                                               international: true))
            }
        }
        let layout = carried?.sourceLayout ?? []
        self.init(chunks: leading + own + trailing,
                  sourceColorType: layout.first.flatMap(PNGColorType.init(rawValue:)) ?? .rgba,
                  sourceBitDepth: layout.count > 1 ? layout[1] : 0,
                  warnings: metadata.warnings)
    }

    /// A profile saying what cICP, where there is one (it comes first: PNG third edition §4.3), or else gAMA and
    /// cHRM say (each absent one taken as sRGB's), described as `colour`: RGB, or gray for a gray image (of
    /// cHRM, only its white point). Nil where cICP says what no ICC profile does (HDR, narrow range: see
    /// ``ColorProfile/cicp(primaries:transfer:matrix:fullRange:gray:description:)``).
    private func builtProfile(describing colour: String) -> ColorProfile? {
        let gray = sourceColorType == .gray || sourceColorType == .grayAlpha
        let description = "PNG " + colour
        if let data = chunks.first(where: { $0.type == "cICP" })?.data {
            guard data.count == 4 else { return nil }
            let at = data.startIndex
            return ColorProfile.cicp(primaries: data[at], transfer: data[at + 1], matrix: data[at + 2], fullRange: data[at + 3],
                                     gray: gray, description: description)
        }
        let encoding = chunks.first { $0.type == "gAMA" && $0.data.count == 4 }.map { Self.bigEndian($0.data[0..<4]) }
        guard encoding != 0 else { return nil }
        let curve = encoding.map { TransferCurve.gamma(100_000 / Double($0)) } ?? .srgb
        var chromaticities: [Double] = [0.3127, 0.3290, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06]
        if let chunk = chunks.first(where: { $0.type == "cHRM" && $0.data.count == 32 }) {
            for index in 0..<8 {
                let start = chunk.data.startIndex + 4 * index
                chromaticities[index] = Double(Self.bigEndian(chunk.data[start..<(start + 4)])) / 100_000
            }
        }
        let white = Array(chromaticities[0..<2])
        return gray ? ColorProfile.gray(white: white, curve: curve, description: description)
            : ColorProfile.rgb(white: white, primaries: Array(chromaticities[2...]), curve: curve, description: description)
    }

    /// What gAMA, cHRM and cICP say of the colours where it is not sRGB, in words; nil when they say sRGB (within
    /// what writers round to: gAMA 0.45, cHRM's primaries within 0.01) or are absent. Many writers add the sRGB
    /// values: those are no reason to say anything. cICP, where there is one, says it alone (PNG third edition
    /// §4.3: it comes before gAMA and cHRM).
    static func colourOtherThanSRGB(_ chunks: [PNGChunk]) -> String? {
        if let data = chunks.first(where: { $0.type == "cICP" })?.data, data.count == 4 {
            guard data[0] != 1 || data[1] != 13 || data[2] != 0 || data[3] != 1 else { return nil }
            // Matrix coefficients other than 0 (identity) and narrow range are named: no profile says those.
            let matrix = data[2] == 0 ? "" : ", matrix \(data[2])"
            return "cICP (primaries \(data[0]), transfer \(data[1])\(matrix)\(data[3] == 1 ? "" : ", narrow range"))"
        }
        var said: [String] = []
        if let data = chunks.first(where: { $0.type == "gAMA" })?.data, data.count == 4 {
            let gamma = Double(bigEndian(data[0..<4])) / 100_000
            if abs(gamma - 0.45455) > 0.005 { said.append("gAMA \(String(format: "%.5g", gamma))") }
        }
        if let data = chunks.first(where: { $0.type == "cHRM" })?.data, data.count == 32 {
            let values = (0..<8).map { Double(bigEndian(data[(4 * $0)..<(4 * $0 + 4)])) / 100_000 }
            let srgb = [0.3127, 0.3290, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06]
            if zip(values, srgb).contains(where: { abs($0 - $1) > 0.01 }) { said.append("cHRM (primaries other than sRGB's)") }
        }
        return said.isEmpty ? nil : said.joined(separator: ", ")
    }

    /// iCCP's data: the name (Latin-1, at most 79 bytes), NUL, method 0, the zlib-compressed profile.
    static func iccp(_ profile: ColorProfile) throws(PNGError) -> [UInt8] {
        var compressed = cpng_buffer()
        guard profile.bytes.withUnsafeBufferPointer({ cpng_compress($0.baseAddress, $0.count, &compressed) }) != 0 else {
            throw .outOfMemory("compressing the colour profile")
        }
        defer { cpng_buffer_free(&compressed) }
        return keyword(profile.name) + [0, 0] + Array(UnsafeBufferPointer(start: compressed.data, count: compressed.size))
    }

    /// A text chunk: tEXt when keyword and text are Latin-1, else (or for XMP) an uncompressed iTXt.
    static func textChunk(_ entry: TextEntry, international: Bool = false) -> PNGChunk {
        // No PNG text holds a NUL (a JPEG comment may): the text stops at one.
        var entry = entry
        if let nul = entry.value.firstIndex(of: "\0") { entry.value = String(entry.value[..<nul]) }
        let latin1 = !international && entry.value.unicodeScalars.allSatisfy { $0.value <= 0xFF }
        if latin1 {
            return PNGChunk(type: "tEXt", data: keyword(entry.keyword) + [0] + entry.value.unicodeScalars.map { UInt8($0.value) },
                            placement: .beforeImageData)
        }
        // Keyword, NUL, not compressed, method 0, no language tag, no translated keyword, UTF-8 text.
        return PNGChunk(type: "iTXt", data: keyword(entry.keyword) + [0, 0, 0, 0, 0] + Array(entry.value.utf8),
                        placement: .beforeImageData)
    }

    /// A keyword PNG allows: its printable ASCII characters, 1–79 of them ("ICC" when none is left).
    private static func keyword(_ text: String) -> [UInt8] {
        let bytes = text.utf8.filter { (32...126).contains($0) }.prefix(79)
        return bytes.isEmpty ? Array("ICC".utf8) : Array(bytes)
    }

    /// The keyword and text of a tEXt, zTXt or iTXt chunk; nil when it is damaged.
    static func text(of chunk: PNGChunk) -> TextEntry? {
        let data = chunk.data
        guard let nul = data.firstIndex(of: 0) else { return nil }
        let keyword = latin1(data[..<nul])
        switch chunk.type {
        case "tEXt":
            return TextEntry(keyword: keyword, value: latin1(data[(nul + 1)...]))
        case "zTXt":
            guard nul + 2 <= data.count, let text = inflate(data[(nul + 2)...]) else { return nil }
            return TextEntry(keyword: keyword, value: latin1(text[...]))
        default:
            guard nul + 3 <= data.count, let language = data[(nul + 3)...].firstIndex(of: 0),
                  let translated = data[(language + 1)...].firstIndex(of: 0) else { return nil }
            let body = data[(translated + 1)...]
            guard let text = data[nul + 1] == 1 ? inflate(body) : Array(body) else { return nil }
            return TextEntry(keyword: keyword, value: String(decoding: text, as: UTF8.self))
        }
    }

    private static func latin1(_ bytes: ArraySlice<UInt8>) -> String {
        String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    static func bigEndian(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reduce(0) { $0 << 8 | Int($1) }
    }

    private static func bigEndian(_ value: Int) -> [UInt8] {
        let clamped = UInt32(clamping: value)
        return [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: clamped >> $0) }
    }
}
