/// Image formats Kiln knows by their signature but does not read: an input in
/// one of them is named as such ("is a GIF image; kiln reads PNG, JPEG and WebP"),
/// not reported as a PNG with a bad signature. Recognising a format here
/// reads nothing past its first ``prefixLength`` bytes.
enum ForeignFormats {
    /// Bytes a file holds at an offset of its start.
    struct Part: Sendable {
        /// Where the bytes start.
        let offset: Int
        /// The bytes.
        let bytes: [UInt8]

        /// `bytes` at `offset`.
        init(_ offset: Int, _ bytes: [UInt8]) {
            self.offset = offset
            self.bytes = bytes
        }

        /// The ASCII `text` at `offset`.
        init(_ offset: Int, _ text: String) { self.init(offset, Array(text.utf8)) }
    }

    /// One format: its name, its signatures, each a list of parts that must all be there,
    /// and the extensions its files are named with.
    struct Format: Sendable {
        /// The format's name, as a sentence says it ("GIF", "HEIF").
        let name: String
        /// Any one of them names the format.
        let signatures: [[Part]]
        /// The extensions (lowercase, no dot) a folder scan names the format by (``name(byExtensionOf:)``).
        let extensions: [String]
    }

    /// Bytes of a file's start that every signature below needs at most.
    static let prefixLength = 12

    /// ISO base media files (HEIF, AVIF): a box size, "ftyp", then the major brand.
    private static func brands(_ names: [String]) -> [[Part]] { names.map { [Part(4, "ftyp"), Part(8, $0)] } }

    /// The formats, each by its specification's signature.
    static let all: [Format] = [
        Format(name: "GIF", signatures: [[Part(0, "GIF87a")], [Part(0, "GIF89a")]], extensions: ["gif"]),
        Format(name: "TIFF", signatures: [[Part(0, [0x49, 0x49, 0x2A, 0x00])], [Part(0, [0x4D, 0x4D, 0x00, 0x2A])]],
               extensions: ["tif", "tiff"]),
        // "BM", the file size, then two reserved 16-bit fields that are zero.
        Format(name: "BMP", signatures: [[Part(0, "BM"), Part(6, [0, 0, 0, 0])]], extensions: ["bmp"]),
        Format(name: "AVIF", signatures: brands(["avif", "avis"]), extensions: ["avif"]),
        Format(name: "HEIF", signatures: brands(["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs", "mif1", "msf1"]),
               extensions: ["heic", "heif"]),
        // A bare codestream, or the ISO container's signature box.
        Format(name: "JPEG XL", signatures: [[Part(0, [0xFF, 0x0A])],
                                             [Part(0, [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A])]],
               extensions: ["jxl"]),
        Format(name: "QOI", signatures: [[Part(0, "qoif")]], extensions: ["qoi"]),
    ]

    /// The name of the format a file named `name` is in by its extension (any case), or nil:
    /// what a folder scan says of a file it passes over, without opening it.
    static func name(byExtensionOf name: String) -> String? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let suffix = name[name.index(after: dot)...].lowercased()
        return all.first { $0.extensions.contains(suffix) }?.name
    }

    /// "a JPEG", "an AVIF": the format's name with its article.
    static func withArticle(_ format: String) -> String {
        // Every name above is said with a consonant first but AVIF.
        (format == "AVIF" ? "an " : "a ") + format
    }

    /// The name of the format `bytes` (a file's start) is in, or nil.
    static func name(of bytes: ArraySlice<UInt8>) -> String? {
        let start = Array(bytes.prefix(prefixLength))
        let present = { (part: Part) in
            start.count >= part.offset + part.bytes.count
                && start[part.offset..<(part.offset + part.bytes.count)].elementsEqual(part.bytes)
        }
        return all.first { $0.signatures.contains { $0.allSatisfy(present) } }?.name
    }
}

/// An input in a format Kiln knows but does not read.
struct ForeignImage: Error, CustomStringConvertible {
    /// The format's name ("GIF").
    let format: String
    var description: String {
        "is \(ForeignFormats.withArticle(format)) image; kiln reads \(ImageCodecs.readableNames)"
    }
}
