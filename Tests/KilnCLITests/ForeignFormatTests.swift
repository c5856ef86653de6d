import Foundation
import KilnTestSupport
import Testing

/// A file of a format Kiln knows but does not read (issue 24), named on the
/// command line: the failure says which format it is, not "bad signature".
/// JPEG and WebP are read since issue 27: the start of one alone fails as that format's damage.
@Suite struct ForeignFormatTests {
    /// Each format's name and the first bytes of a file in it.
    static let files: [(format: String, start: [UInt8])] = [
        ("a GIF", Array("GIF89a".utf8) + [8, 0, 8, 0]),
        ("a GIF", Array("GIF87a".utf8) + [8, 0, 8, 0]),
        ("a TIFF", [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]),
        ("a TIFF", [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8]),
        ("a BMP", Array("BM".utf8) + [70, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0]),
        ("an AVIF", [0, 0, 0, 0x1C] + Array("ftypavif".utf8)),
        ("a HEIF", [0, 0, 0, 0x18] + Array("ftypheic".utf8)),
        ("a JPEG XL", [0xFF, 0x0A, 0xFA, 0x7F]),
        ("a JPEG XL", [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]),
        ("a QOI", Array("qoif".utf8) + [0, 0, 0, 8, 0, 0, 0, 8, 3, 0]),
    ]

    @Test(arguments: 0..<files.count)
    func aKnownFormatIsNamed(index: Int) throws {
        let (format, start) = Self.files[index]
        let dir = try TemporaryDirectory()
        let input = dir.join("picture")
        try Data(start + [UInt8](repeating: 0, count: 64)).write(to: URL(fileURLWithPath: input))
        let r = try kiln(["export", input, "-o", dir.join("out"), "--device", "cpu", "--progress", "none"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("picture: is \(format) image; kiln reads PNG, JPEG and WebP"), "\(r.stderr)")
        #expect(!r.stderr.contains("bad signature"), "\(r.stderr)")
    }

    @Test func aJPEGStartIsReadAsAJPEG() throws {
        let dir = try TemporaryDirectory()
        let input = dir.join("picture")
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0])
            .write(to: URL(fileURLWithPath: input))
        let r = try kiln(["export", input, "-o", dir.join("out"), "--device", "cpu", "--progress", "none"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("picture: truncated JPEG: Premature end of JPEG file"), "\(r.stderr)")
    }

    @Test func aWebPStartIsReadAsAWebP() throws {
        let dir = try TemporaryDirectory()
        let input = dir.join("picture")
        try Data(Array("RIFF".utf8) + [40, 0, 0, 0] + Array("WEBPVP8 ".utf8) + [UInt8](repeating: 0, count: 64))
            .write(to: URL(fileURLWithPath: input))
        let r = try kiln(["export", input, "-o", dir.join("out"), "--device", "cpu", "--progress", "none"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("picture: corrupt WebP") || r.stderr.contains("picture: truncated WebP"), "\(r.stderr)")
    }

    @Test func anUnknownFormatIsStillABadPNGSignature() throws {
        let dir = try TemporaryDirectory()
        try Data(Array("hello, world".utf8)).write(to: URL(fileURLWithPath: dir.join("text")))
        let r = try kiln(["export", dir.join("text"), "-o", dir.join("out"), "--device", "cpu", "--progress", "none"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("bad signature"), "\(r.stderr)")
    }
}
