import Color
import Compute
import Foundation
import ImageCore
import JPEGCodec
import PNGCodec
import Render
import WebPCodec

/// The codecs an export reads and writes: an input's format is recognised by
/// its content (SPEC §5), never by its name. Adding a format is adding its
/// codec target and one line to ``all``.
enum ImageCodecs {
    /// Every codec, in the order their signatures are tried.
    static let all: [any ImageCodec] = [PNGImageCodec(), JPEGImageCodec(), WebPImageCodec()]

    /// The formats read, by the extensions (lowercase, no dot) a folder scan
    /// picks files up by and `--format same` names outputs by (each format's
    /// own: `.jpe` and `.jfif` give `.jpg`). `.jpe` and `.jfif` are JPEG's too, as
    /// libvips and libjpeg's tools take them: a scan passed them over, as no images.
    static let extensions: [(name: String, format: ImageFormat)] = [
        ("png", .png), ("jpg", .jpeg), ("jpeg", .jpeg), ("jpe", .jpeg), ("jfif", .jpeg), ("webp", .webp),
    ]

    /// The names of the formats read, for sentences: "PNG, JPEG and WebP".
    static let readableNames = all.dropLast().map(\.format.title).joined(separator: ", ") + " and " + all.last!.format.title

    /// The codec of `format`.
    static func codec(for format: ImageFormat) -> (any ImageCodec)? {
        all.first { $0.format == format }
    }

    /// The format `--format` names; nil for `same`.
    static func format(of output: OutputFormat) -> ImageFormat? {
        switch output {
        case .same: nil
        case .png: .png
        case .jpeg: .jpeg
        case .webp: .webp
        }
    }

    /// The format a file named `name` is in by its extension (any case), or nil.
    static func format(byExtensionOf name: String) -> ImageFormat? {
        let base = name.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(name)
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex else { return nil }
        let suffix = base[base.index(after: dot)...].lowercased()
        return extensions.first { $0.name == suffix }?.format
    }

    /// Bytes of a file's start that tell every format apart, those read and those only named.
    private static let prefixLength = max(all.map(\.signatureLength).max() ?? 0, ForeignFormats.prefixLength)

    /// The codec whose signature `bytes` starts with.
    static func codec(for bytes: ArraySlice<UInt8>) -> (any ImageCodec)? {
        all.first { $0.recognizes(bytes.prefix($0.signatureLength)) }
    }

    /// A reader of the file at `path` (`bytes`: the whole file when it was read
    /// already), by the codec its content names. Content no codec recognises
    /// is named when it is a format Kiln knows but does not read (JPEG, …),
    /// else handed to each codec in turn: one that reads it wins; otherwise the
    /// error gives each codec's reason (a damaged PNG signature is named as such).
    static func reader(path: String, bytes: [UInt8]?, limits: DecodingLimits) throws -> any ImageReader {
        let open = { (codec: any ImageCodec) throws -> any ImageReader in
            try bytes.map { try codec.reader(bytes: $0, limits: limits) } ?? codec.reader(contentsOf: path, limits: limits)
        }
        // A folder, a pipe or a device is never opened as an image: reading a pipe or a terminal could wait forever.
        if bytes == nil, let special = SpecialFile(path: path) { throw special }
        let start = bytes?.prefix(prefixLength) ?? prefix(of: path)
        if let codec = codec(for: start) { return try open(codec) }
        // A file that cannot be opened says so once, not once per codec tried.
        if bytes == nil, start.isEmpty, let unopened = UnopenedFile(path: path) { throw unopened }
        // Said once, not as each codec's reason ("not a PNG file: the input is empty; not a JPEG file: …").
        if start.isEmpty { throw EmptyFile() }
        if let format = ForeignFormats.name(of: start) { throw ForeignImage(format: format) }
        // A whole file shorter than a format's signature and its start (a JPEG of two bytes, "RIFF"): that format,
        // cut. Before, each reader's reason in turn ("not a PNG file (bad signature) …; truncated JPEG …; not a WebP").
        if let codec = all.first(where: { $0.isCutInsideSignature(start) }) {
            throw CutInsideSignature(format: codec.format.title, bytes: start.count)
        }
        // A start damaged after a format's first signature bytes (a JPEG's SOI, then junk): that format's reason
        // alone. Before, every reader's in turn ("not a PNG file (bad signature) …; truncated JPEG …; not a WebP").
        if let codec = all.first(where: { $0.beginsSignature(start) }) { return try open(codec) }
        var reasons: [any Error] = []
        for codec in all {
            do { return try open(codec) } catch { reasons.append(error) }
        }
        throw UnsupportedImage(reasons: reasons)
    }

    /// Under `--profile`, a CMYK JPEG's rows converted straight into the target as they are decoded
    /// (``JPEGRowReader/convertCMYK(into:)``); any other reader is left as it is. Before its first row.
    static func convertCMYK(of reader: any ImageReader, into converter: ColorConverter) throws {
        try (reader as? JPEGRowReader)?.convertCMYK(into: converter)
    }

    /// The header of the file at `path`, by the codec its content names.
    static func header(contentsOf path: String) throws -> ImageHeader {
        guard let codec = codec(for: prefix(of: path)) else { throw UnsupportedImage(reasons: []) }
        return try codec.header(contentsOf: path)
    }

    /// Whether `bytes` are an image file that decodes to its end (read through by its reader, its rows not held
    /// where the format streams): what a user's editor saves is; a write the disk lost (no bytes, zeros, a file cut
    /// short) is not. (Rejected: its ends alone, a PNG's IEND or a JPEG's EOI last: an edit saved with a JPEG
    /// trailer after its EOI was taken for a lost write, and written over.)
    static func decodesWhole(_ bytes: [UInt8]) -> Bool {
        (try? reader(path: "", bytes: bytes, limits: DecodingLimits(maxPixels: .max)).finish()) != nil
    }

    /// The format of the file at `path` by its content, or nil (unreadable, or no format Kiln reads).
    static func format(contentsOf path: String) -> ImageFormat? {
        codec(for: prefix(of: path))?.format
    }

    /// The whole image in the file at `path`, checked to its end, as a viewer shows it: its
    /// EXIF orientation applied (SPEC §4.1), on the CPU (a watermark: a phone's photo or a
    /// logo saved sideways with orientation 6 was placed as stored, before 2026-11-27), and its
    /// colours converted into those of `space` (nil: sRGB's), the profile of the image it is drawn
    /// on (``ColorConverter/convert(_:from:to:)``: before, an sRGB logo's values were drawn as they
    /// were on a Display P3 photo, more saturated than the logo, and a linear one's too dark).
    static func decode(contentsOf path: String, limits: DecodingLimits, shownIn space: ColorProfile? = nil) throws -> PixelBuffer {
        let reader = try reader(path: path, bytes: nil, limits: limits)
        var image = try reader.readAll()
        let metadata = try reader.finish()
        ColorConverter.convert(&image, from: metadata.colorProfile, to: space)
        let upright = Operation.upright(exifOrientation: metadata.orientation)
        guard !upright.isEmpty else { return image }
        return try RenderPipeline(operations: upright, loadImage: { _, _ in image }).render(image, on: CPUBackend())
    }

    /// The first bytes of the file at `path` (fewer for a short or unreadable one, none for anything
    /// but a regular file: the reader says why). Opened without blocking: a pipe named `.png` never holds it.
    private static func prefix(of path: String) -> ArraySlice<UInt8> {
        let descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return [] }
        var bytes = [UInt8](repeating: 0, count: prefixLength)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        return bytes.prefix(max(0, count))
    }
}

/// A file that ends inside its format's signature.
struct CutInsideSignature: Error, CustomStringConvertible {
    /// "JPEG".
    let format: String
    /// The file's size.
    let bytes: Int
    var description: String { "truncated \(format): the file ends after \(bytes) byte\(bytes == 1 ? "" : "s"), inside the \(format) signature" }
}

/// An input of no bytes at all.
struct EmptyFile: Error, CustomStringConvertible {
    var description: String { "the file is empty (0 bytes)" }
}

/// An input no codec reads, with each codec's reason.
struct UnsupportedImage: Error, CustomStringConvertible {
    /// Why each codec refused it.
    let reasons: [any Error]
    var description: String {
        reasons.isEmpty ? "not an image Kiln reads (\(ImageCodecs.readableNames))" : reasons.map { "\($0)" }.joined(separator: "; ")
    }
}

/// A path that names something other than a regular file: a folder, a named pipe, a socket, a device.
/// Never opened as an image (a pipe or a terminal could block the read forever); it fails alone.
struct SpecialFile: Error, CustomStringConvertible {
    /// What it is: "a named pipe (FIFO)".
    let kind: String

    /// Nil when `path` is a regular file (or a link to one), or names nothing (the open says why).
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0, let kind = Self.kind(info.st_mode) else { return nil }
        self.kind = kind
    }

    /// What a file of mode `mode` is, in words; nil for a regular file.
    static func kind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a folder"
        case S_IFIFO: "a named pipe (FIFO)"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }

    var description: String { "not an image file: it is \(kind)" }
}

/// A file that cannot be opened for reading (missing, a permission), with the system's reason.
struct UnopenedFile: Error, CustomStringConvertible {
    let reason: String

    /// Nil when the file at `path` opens.
    init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor >= 0 {
            close(descriptor)
            return nil
        }
        reason = String(cString: strerror(errno))
    }

    var description: String { "I/O error: cannot open the file: \(reason)" }
}
