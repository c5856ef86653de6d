import Foundation
import KilnTestSupport
import Testing

/// Files a folder scan passes over are counted and named (issue 24): a folder
/// of PNG, HEIF, TIFF and GIF files no longer says only "Exporting 3
/// images". Each ignored file is an `ignored` event, the `start` event counts
/// them, and the text output sums them up once. JPEG and WebP are read since
/// issue 27: a folder scan picks them up.
@Suite struct IgnoredFilesTests {
    /// The first bytes of a file in each ignored format (its magic number is enough: it is never read).
    private static let foreign: [(name: String, bytes: [UInt8])] = [
        ("photo.jp2", [0, 0, 0, 0x0C]),
        ("photo.heic", [0, 0, 0, 0x18] + Array("ftypheic".utf8)),
        ("scan.TIF", [0x49, 0x49, 0x2A, 0x00]),
        ("loop.gif", Array("GIF89a".utf8)),
    ]

    /// `in/` with 3 PNGs, the four other files named as images (a JPEG 2000 is not a format
    /// Kiln names: only its name's look), a README.txt and a hidden JPEG.
    private func makeFolder(foreign: Bool = true) throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory()
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        for (index, sample) in ["rgb8.png", "gray8.png", "palette4.png"].enumerated() {
            try fm.copyItem(atPath: Paths.sampleData + "/" + sample, toPath: dir.join("in/\(index)-\(sample)"))
        }
        guard foreign else { return dir }
        for (name, bytes) in Self.foreign {
            try Data(bytes).write(to: URL(fileURLWithPath: dir.join("in/" + name)))
        }
        try "read me".write(toFile: dir.join("in/README.txt"), atomically: true, encoding: .utf8)
        try Data([0xFF, 0xD8, 0xFF]).write(to: URL(fileURLWithPath: dir.join("in/.hidden.jpg")))
        return dir
    }

    @Test func eachIgnoredFileIsAnEventNamingItsFormat() throws {
        let dir = try makeFolder()
        let r = try kiln(["export", dir.join("in"), "-o", dir.join("out"), "--device", "cpu", "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let events = Events(r.stdoutLines)
        #expect(events.files("written").count == 3)
        let ignored = events.named("ignored")
        let formats = Dictionary(ignored.map { ($0[string: "path"], $0[string: "format"]) }, uniquingKeysWith: { a, _ in a })
        #expect(formats == [
            dir.join("in/photo.jp2"): "", dir.join("in/photo.heic"): "HEIF",
            dir.join("in/scan.TIF"): "TIFF", dir.join("in/loop.gif"): "GIF", dir.join("in/README.txt"): "",
        ], "\(ignored)")
        let gif = ignored.first { $0[string: "path"].hasSuffix("loop.gif") }
        #expect(gif?[string: "reason"] == "a GIF image (by its name); kiln reads PNG, JPEG and WebP")
        #expect(ignored.first { $0[string: "path"].hasSuffix("README.txt") }?[string: "reason"]
                == "not an image file Kiln reads (.png, .jpg, .jpeg, .jpe, .jfif, .webp)")
        let start = events.named("start").first
        #expect(start?["ignoredImages"] as? Int == 3, "\(String(describing: start))")
        #expect(start?["ignoredOther"] as? Int == 2, "\(String(describing: start))")
        // The stream's order holds: `start` first, the ignored files right after it, before any `file`.
        #expect(events.all.first?["event"] as? String == "start")
        let lastIgnored = events.all.lastIndex { $0["event"] as? String == "ignored" } ?? 0
        let firstFile = events.all.firstIndex { $0["event"] as? String == "file" } ?? 0
        #expect(lastIgnored < firstFile)
    }

    @Test func textOutputSumsThemUpOnce() throws {
        let dir = try makeFolder()
        // --progress bar without a terminal: the text lines, no bar.
        let r = try kiln(["export", dir.join("in"), "-o", dir.join("out"), "--device", "cpu", "--progress", "bar"])
        #expect(r.status == 0, "\(r.stderr)")
        let line = "kiln: ignored 5 files that are not .png, .jpg, .jpeg, .jpe, .jfif, .webp: 3 images (1 GIF, 1 HEIF, 1 TIFF) and 2 other files"
        #expect(r.stderr.components(separatedBy: line).count == 2, "\(r.stderr)")
        #expect(r.stderr.components(separatedBy: "ignored").count == 2, "\(r.stderr)")
        #expect(!r.stderr.contains(".hidden"), "\(r.stderr)")
    }

    /// `--progress plain` (the help promised it; only `auto` gave plain lines) shows the progress as a line every
    /// 10 seconds: a long job written to a log said nothing between its header and its summary.
    @Test func plainLinesShowTheProgressEveryTenSeconds() throws {
        let dir = try makeFolder()
        let (shown, r) = try exportShowingAProgressLine(dir.join("in"), to: dir.join("out"), release: dir.join("release"))
        #expect(shown, "no progress line: \(r.stderr)")
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("kiln: Exporting ") == true && lines.last?.contains(" written, ") == true, "\(lines)")
        let progress = lines.filter { $0.contains("% · ") }
        #expect(progress.first.map { $0.hasPrefix("kiln: ") && $0.contains("1/") } == true, "\(progress)")
        #expect(!r.stderr.contains("\u{1B}"), "no escape codes")
    }

    @Test func recursiveNamesThemInSubfoldersButNotTheJournal() throws {
        let dir = try makeFolder()
        try FileManager.default.createDirectory(atPath: dir.join("in/sub"), withIntermediateDirectories: true)
        try Data("II".utf8).write(to: URL(fileURLWithPath: dir.join("in/sub/deep.TIFF")))
        try Data("BM".utf8).write(to: URL(fileURLWithPath: dir.join("in/sub/old.bmp")))
        let r = try kiln(["export", dir.join("in"), "--recursive", "-o", dir.join("out"), "--keep-journal",
                          "--device", "cpu", "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let events = Events(r.stdoutLines)
        let paths = Set(events.named("ignored").map { $0[string: "path"] })
        #expect(paths.contains(dir.join("in/sub/deep.TIFF")))
        #expect(paths.contains(dir.join("in/sub/old.bmp")))
        #expect(!paths.contains { $0.contains(".hidden") || $0.contains(".kiln") }, "\(paths)")
        #expect(events.named("start").first?["ignoredImages"] as? Int == 5)

        // The export's own folder, journal kept, scanned again: the files in its `.kiln` are never reported.
        #expect(FileManager.default.fileExists(atPath: dir.join("out/.kiln")))
        let again = try kiln(["export", dir.join("out"), "--recursive", "-o", dir.join("again"),
                              "--device", "cpu", "--progress", "json"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(Events(again.stdoutLines).named("ignored").isEmpty, "\(again.stdout)")
    }

    @Test func onlyPNGsReportNothingIgnored() throws {
        let dir = try makeFolder(foreign: false)
        let r = try kiln(["export", dir.join("in"), "-o", dir.join("out"), "--device", "cpu", "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let events = Events(r.stdoutLines)
        #expect(events.files("written").count == 3)
        #expect(events.named("ignored").isEmpty)
        #expect(events.named("start").first?["ignoredImages"] as? Int == 0)
        #expect(events.named("start").first?["ignoredOther"] as? Int == 0)
        let text = try kiln(["export", dir.join("in"), "-o", dir.join("out2"), "--device", "cpu", "--progress", "bar"])
        #expect(text.status == 0)
        #expect(!text.stderr.contains("ignored"), "\(text.stderr)")
    }

    /// Folders of other files (names only: nothing is read) and the summary line each gives.
    static let summaries: [(names: [String], line: String)] = [
        (["notes.txt"], "kiln: ignored 1 file that is not .png, .jpg, .jpeg, .jpe, .jfif, .webp\n"),
        (["a.gif", "b.GIF", "c.heic"], "kiln: ignored 3 files that are not .png, .jpg, .jpeg, .jpe, .jfif, .webp: 2 GIF, 1 HEIF\n"),
        (["a.avif", "b.jxl", "c.qoi", "d.bmp", "e", "f.tiff"],
         "kiln: ignored 6 files that are not .png, .jpg, .jpeg, .jpe, .jfif, .webp: 5 images (1 AVIF, 1 BMP, 1 JPEG XL, 1 QOI, 1 TIFF) and 1 other file\n"),
    ]

    @Test(arguments: 0..<summaries.count)
    func theSummarySaysWhatIsThere(index: Int) throws {
        let (names, line) = Self.summaries[index]
        let dir = try makeFolder(foreign: false)
        for name in names { try Data("x".utf8).write(to: URL(fileURLWithPath: dir.join("in/" + name))) }
        let r = try kiln(["export", dir.join("in"), "-o", dir.join("out"), "--device", "cpu", "--progress", "bar"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains(line), "\(r.stderr)")
    }

    @Test func noImagesSaysWhatWasPassedOver() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        try Data("GIF89a".utf8).write(to: URL(fileURLWithPath: dir.join("in/loop.gif")))
        try "read me".write(toFile: dir.join("in/README.txt"), atomically: true, encoding: .utf8)
        let r = try kiln(["export", dir.join("in"), "-o", dir.join("out"), "--device", "cpu", "--progress", "none"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("no images to export in \(dir.join("in"))"), "\(r.stderr)")
        #expect(r.stderr.contains("; ignored 2 files that are not .png, .jpg, .jpeg, .jpe, .jfif, .webp: 1 image (1 GIF) and 1 other file"),
                "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.join("out")))
    }
}
