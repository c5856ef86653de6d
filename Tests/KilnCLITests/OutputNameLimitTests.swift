import Foundation
import KilnTestSupport
import Testing

/// Output names are checked against the output file system's limits (NAME_MAX,
/// PATH_MAX) when the job is planned, before any image is decoded. (Issue 24:
/// a name too long was found only after decode, render and encode, and left an
/// empty folder behind.)
@Suite struct OutputNameLimitTests {
    /// A 253-byte name with no extension: fine as an input, 257 bytes with `.png` added.
    private let longName = String(repeating: "n", count: 253)

    @Test func theOnlyInputWithAnOutputNameTooLongIsAUsageErrorAndCreatesNothing() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join(longName))
        let r = try kiln(["export", dir.join(longName), "--output", dir.join("out"), "--progress", "json"])
        #expect(r.status == 64, "\(r.stderr)")
        let message = Events(r.stdoutLines).named("error").first?[string: "message"] ?? ""
        #expect(message.contains("257 bytes") && message.contains("255"), "\(message)")
        #expect(!FileManager.default.fileExists(atPath: dir.join("out")), "no empty folder left behind")
    }

    @Test func anOutputNameTooLongFailsAloneBeforeItsImageIsDecoded() throws {
        let dir = try TemporaryDirectory()
        // Not a PNG: had it been decoded, its failure would say so.
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: dir.join(longName)))
        let r = try kiln(["export", dir.join(longName), Paths.sampleData + "/rgb8.png", "--output", dir.join("out"),
                          "--progress", "json"])
        #expect(r.status == 1, "\(r.stderr)")
        let events = Events(r.stdoutLines)
        let failed = events.files("failed")
        #expect(failed.count == 1)
        let error = failed.first?[string: "error"] ?? ""
        #expect(error.contains("257 bytes") && !error.lowercased().contains("signature"), "\(error)")
        #expect(Paths.pngs(in: dir.join("out")) == ["rgb8.png"])
    }
}
