/// An image's ancillary information in a form no codec owns (SPEC §1): what a
/// reader found, what a writer writes. Each field is filled by the reader
/// where the file has it; ``carried`` keeps the source's own blocks, so an
/// output of the same format gets them back byte for byte.
///
/// A writer writes the carried blocks that still hold for its output (if they
/// are in its format), then every field whose kind no carried block covers
/// (a profile set by a colour conversion, EXIF read from another format).
public struct ImageMetadata: Sendable, Equatable {
    /// The ICC colour profile.
    public var colorProfile: ColorProfile?
    /// The EXIF block: a TIFF stream (byte-order mark first).
    public var exif: [UInt8]?
    /// The XMP packet (UTF-8 XML).
    public var xmp: [UInt8]?
    /// A JPEG's Photoshop image resources (APP13 after "Photoshop 3.0"), where IPTC
    /// (caption, keywords, copyright) lives: written back into JPEG outputs only, which
    /// have its place; a PNG or WebP output says it left it out. Kept with `text`.
    public var iptc: [UInt8]?
    /// A JPEG's extended XMP (XMP part 3: the packet's part past one segment's 64 KiB, which the main packet's
    /// `xmpNote:HasExtendedXMP` names by its digest): each APP1 segment's data after its signature (the digest,
    /// the full length, the offset, the portion), in file order. Written back into JPEG outputs only, after the
    /// main packet; a PNG or WebP output says it left it out. Kept with `text`.
    public var extendedXMP: [[UInt8]]?
    /// Where no ICC profile says what the colours are, but the file says they are not sRGB in
    /// terms kiln builds no profile from (PNG's cICP when HDR, narrow-range or of a YCbCr matrix): those terms,
    /// in words ("cICP (primaries 9, transfer 16)"). An output that does not keep them says so.
    public var colourWithoutProfile: String?
    /// Where the file has no ICC profile of its own and ``colorProfile`` was built from what it says in other
    /// terms (PNG's cICP, or gAMA and cHRM): those terms, in words ("gAMA 1"), to name them where they are not kept.
    public var profileBuiltFrom: String?
    /// Whether the file says, in its own terms and with no ICC profile, that its colours are sRGB (PNG's sRGB
    /// chunk, a cICP of sRGB, a gAMA and cHRM of sRGB's values): a conversion starts from sRGB, not from
    /// `--input-profile`, which is for images that say nothing (before, it overrode these, up to 79 levels off).
    public var saysSRGB = false
    /// Text entries, in file order.
    public var text: [TextEntry]
    /// Physical pixel density.
    public var resolution: Resolution?
    /// Whether the source said when it was made: the output then says when it was.
    public var hasTime: Bool
    /// Blocks left out while reading, one sentence each ("iCCP: the compressed profile is damaged; …").
    public var warnings: [String]
    /// Whether the file holds an animation of which only the default image is read (an APNG's frames).
    public var dropsAnimation = false
    /// The source's blocks as its format stores them; nil when there are none to carry.
    public var carried: CarriedMetadata?

    /// Metadata; every field empty by default.
    public init(colorProfile: ColorProfile? = nil, exif: [UInt8]? = nil, xmp: [UInt8]? = nil, text: [TextEntry] = [],
                resolution: Resolution? = nil, hasTime: Bool = false, warnings: [String] = [],
                carried: CarriedMetadata? = nil) {
        self.colorProfile = colorProfile
        self.exif = exif
        self.xmp = xmp
        self.text = text
        self.resolution = resolution
        self.hasTime = hasTime
        self.warnings = warnings
        self.carried = carried
    }

    /// The EXIF orientation (1–8, TIFF tag 0x0112 of the first IFD); 1 when
    /// there is no EXIF, no tag, or the value is out of range.
    public var orientation: Int { exif.flatMap(Exif.init)?.orientation ?? 1 }

    /// Takes `bytes` as the EXIF where they are a TIFF stream (``Exif/init(_:)``); else names `block` in
    /// ``warnings`` as left out: copied as they are, every reader of the output calls them malformed (exiftool:
    /// "Malformed APP1 EXIF segment"; libpng drops such an eXIf).
    public mutating func takeExif(_ bytes: [UInt8], from block: String) {
        if Exif(bytes) != nil {
            exif = bytes
        } else {
            warnings.append("\(block): the EXIF is not a TIFF stream (no II or MM byte order, 42 and a first directory); "
                            + "it is left out")
        }
    }

    /// Makes `profile` the colour profile, replacing every carried block that
    /// defined the colours (a conversion made them false).
    public mutating func replaceColorProfile(with profile: ColorProfile) {
        colorProfile = profile
        carried?.blocks.removeAll { $0.kind == .icc }
    }
}

/// An ICC profile and the name the file gave it.
public struct ColorProfile: Sendable, Equatable {
    /// The profile's name (PNG's iCCP keyword: 1–79 Latin-1 characters).
    public var name: String
    /// The ICC bytes.
    public var bytes: [UInt8]

    /// A profile.
    public init(name: String, bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }

    /// The data colour space of the ICC header ("RGB ", "GRAY", "CMYK"), if the bytes hold one:
    /// an ICC header is 128 bytes; bytes 16-19 name the colour space, 36-39 hold "acsp".
    public var colorSpace: String? {
        guard bytes.count >= 128, bytes[36..<40].elementsEqual("acsp".utf8) else { return nil }
        return String(decoding: bytes[16..<20], as: UTF8.self)
    }

    /// Why the profile cannot tag an output written in colour (a JPEG's three
    /// components, a WebP's RGB): only an RGB profile describes them (a gray one
    /// describes one channel, a CMYK one inks); nil when it can, or its space is unknown.
    /// PNG's writer applies the same rule by its output's colour type.
    public var colourOutputDrop: DroppedMetadata? {
        guard let colorSpace, colorSpace != "RGB " else { return nil }
        return DroppedMetadata(type: "ICC profile", reason: "\(Self.article(colorSpace)) colour profile cannot describe a colour output",
                               isNotable: true)
    }

    /// "a gray", "a CMYK", "an RGB", "an XYZ": a profile of `colorSpace` in words (a space's name is
    /// said letter by letter: "an" before the letters said with a vowel first).
    public static func article(_ colorSpace: String) -> String {
        let name = colorSpace == "GRAY" ? "gray" : colorSpace.trimmingCharacters(in: .whitespaces)
        return (name != "gray" && "AEFHILMNORSX".contains(name.first ?? "x") ? "an " : "a ") + name
    }

    /// Why these bytes are no sound ICC profile ("cut short: …"), or nil. Checks what a reader can without interpreting
    /// tags (ICC.1 §7): a 128-byte header with "acsp", the size it declares against the bytes there are
    /// (fewer: the profile was cut short), and that the tag table and every tag it lists lie inside the
    /// profile. A damaged profile copied into an output misleads every reader after it (exiftool's "Bad
    /// length ICC_Profile"), so readers leave it out. `bytes` may be the first bytes (a PNG's inflated head)
    /// of a profile of `size` bytes: tags listed beyond them are not checked.
    public static func damage(_ bytes: ArraySlice<UInt8>, size: Int) -> String? {
        func word(_ offset: Int) -> Int {
            let at = bytes.startIndex + offset
            return Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        }
        guard size >= 132, bytes.count >= 132, bytes.dropFirst(36).starts(with: "acsp".utf8) else {
            return "not an ICC profile"
        }
        let declared = word(0)
        guard declared <= size else { return "cut short: it says \(declared) bytes and holds \(size)" }
        let tags = word(128)
        guard declared >= 132, tags <= (declared - 132) / 12 else { return "its table of \(tags) tags runs past its end" }
        for tag in 0..<tags where 132 + 12 * tag + 12 <= bytes.count {
            let offset = word(132 + 12 * tag + 4), length = word(132 + 12 * tag + 8)
            guard offset <= declared, length <= declared - offset else {
                return "its tag '\(String(decoding: bytes.dropFirst(132 + 12 * tag).prefix(4), as: UTF8.self))' lies outside it"
            }
        }
        return nil
    }

    /// Why the profile cannot tag a gray output (a one-component JPEG, e.g. after `--grayscale`): only a
    /// gray profile describes one channel; nil when it can (a gray one, or one whose space is unknown).
    public var grayOutputDrop: DroppedMetadata? {
        guard let colorSpace, colorSpace != "GRAY" else { return nil }
        return DroppedMetadata(type: "ICC profile", reason: "\(Self.article(colorSpace)) colour profile cannot describe a gray output",
                               isNotable: true)
    }
}

/// One text entry: a keyword and its value.
public struct TextEntry: Sendable, Equatable {
    /// The keyword ("Title", "Author", …).
    public var keyword: String
    /// The text.
    public var value: String
    /// Whether it is a JPEG comment that was not UTF-8, read as Latin-1: written back into a JPEG so, byte for
    /// byte (a Latin-1 "café" came back as UTF-8). Other text is written as UTF-8, as today's readers take a
    /// comment. A hint of how it was stored, not of what it says: entries are equal without it.
    public var latin1: Bool

    /// An entry.
    public init(keyword: String, value: String, latin1: Bool = false) {
        self.keyword = keyword
        self.value = value
        self.latin1 = latin1
    }

    public static func == (a: TextEntry, b: TextEntry) -> Bool {
        a.keyword == b.keyword && a.value == b.value
    }
}

/// Pixels per metre along each axis or, where the source names no unit (PNG's pHYs and JFIF's unit 0), the
/// pixels' aspect ratio alone: `x` pixels across to `y` down in the same length (2 : 1, pixels half as wide as high).
public struct Resolution: Sendable, Equatable {
    /// Horizontal pixels per metre (per unnamed unit when not `perMetre`).
    public var x: Int
    /// Vertical pixels per metre (per unnamed unit when not `perMetre`).
    public var y: Int
    /// Whether `x` and `y` are per metre; false: they state only the aspect ratio of the pixels.
    public var perMetre: Bool

    /// A resolution.
    public init(x: Int, y: Int, perMetre: Bool = true) {
        self.x = x
        self.y = y
        self.perMetre = perMetre
    }
}

/// The source's ancillary blocks in its own format, in file order.
public struct CarriedMetadata: Sendable, Equatable {
    /// The format the blocks are in; only a writer of this format writes them.
    public var format: ImageFormat
    /// The blocks; a type the format allows once appears at most once (the
    /// reader keeps the first, as PNG's reference library does).
    public var blocks: [MetadataBlock]
    /// The source's stored pixel layout in the format's terms (PNG: colour
    /// type, bit depth), for blocks that hold only while it is unchanged.
    public var sourceLayout: [Int]

    /// Carried blocks.
    public init(format: ImageFormat, blocks: [MetadataBlock], sourceLayout: [Int]) {
        self.format = format
        self.blocks = blocks
        self.sourceLayout = sourceLayout
    }
}

/// One block of a format (a PNG chunk): its type, data and place in the stream.
public struct MetadataBlock: Sendable, Equatable {
    /// The kind of information it holds, or nil when it is never copied as it is.
    public var kind: MetadataSelection?
    /// The format's name for it ("iCCP").
    public var type: String
    /// Its bytes, without framing.
    public var data: [UInt8]
    /// Where it stands in the stream, in the format's terms.
    public var placement: Int

    /// A block.
    public init(kind: MetadataSelection?, type: String, data: [UInt8], placement: Int) {
        self.kind = kind
        self.type = type
        self.data = data
        self.placement = placement
    }
}

/// Ancillary information an output leaves out, and why.
public struct DroppedMetadata: Sendable, Equatable, CustomStringConvertible {
    /// The block's type ("iCCP").
    public var type: String
    /// Why it no longer holds for the output.
    public var reason: String
    /// Whether a person should be told (a colour profile lost); the other
    /// drops follow the codec's documented rules.
    public var isNotable: Bool

    /// A dropped block.
    public init(type: String, reason: String, isNotable: Bool) {
        self.type = type
        self.reason = reason
        self.isNotable = isNotable
    }

    /// "iCCP left out: …".
    public var description: String { "\(type) left out: \(reason)" }

    /// What only a JPEG output has a place for, in an output of `format`, when it is to be kept: IPTC
    /// (``ImageMetadata/iptc``) and extended XMP (``ImageMetadata/extendedXMP``).
    public static func jpegOnly(in metadata: ImageMetadata?, keep: MetadataSelection, format: String) -> [DroppedMetadata] {
        guard keep.contains(.text), let metadata else { return [] }
        var dropped: [DroppedMetadata] = []
        if metadata.iptc != nil {
            dropped.append(DroppedMetadata(type: "IPTC", reason: "\(format) has no place for it (a JPEG output keeps it; XMP, "
                                           + "where the file has some, is kept)", isNotable: true))
        }
        if let extended = metadata.extendedXMP, !extended.isEmpty {
            // Before, it went without a word, and the kept packet still named it (exiftool: HasExtendedXMP).
            dropped.append(DroppedMetadata(type: "extended XMP", reason: "\(format) has no place for the part of a JPEG's XMP "
                                           + "past its first 64 KiB (a JPEG output keeps it)"
                                           + (metadata.xmp == nil ? "" : "; the first part is kept"), isNotable: true))
        }
        return dropped
    }
}
