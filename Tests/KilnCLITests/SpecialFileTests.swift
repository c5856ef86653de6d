import Foundation
import KilnTestSupport
import Testing

/// Inputs that are not files: a named pipe (FIFO) is never opened as an image, wherever it is met —
/// reading one waits for a writer that may never come. Before, a FIFO named on the command line hung
/// the job until it was killed, one reached through a link in a folder or a `-` list did the same, and
/// one in a scanned folder was dropped without a word. A folder a recursive scan cannot list was
/// dropped without a word too, and the job exited 0.
@Suite struct SpecialFileTests {
    /// The work is a few small images: a minute is far beyond it, and a hang fails instead of holding CI.
    private let limit = Duration.seconds(60)

    @Test func aNamedPipeIsNeverOpenedAndAlwaysSaid() throws {
        let dir = try TemporaryDirectory()
        let folder = dir.join("photos")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: folder + "/ok.png")
        #expect(mkfifo(folder + "/pipe.png", 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: folder + "/link.png", withDestinationPath: folder + "/pipe.png")

        // In a scanned folder: the pipe is an `ignored` event, the link to it fails alone, the rest is written.
        let scanned = try kiln(["export", folder, "-o", dir.join("out"), "--progress", "json"], timeout: limit)
        #expect(scanned.status == 1, "\(scanned.stderr)")
        let events = Events(scanned.stdoutLines)
        let ignored = events.named("ignored")
        #expect(ignored.count == 1 && ignored.first?["reason"] as? String == "not a regular file: a named pipe (FIFO)",
                "\(scanned.stdout)")
        #expect(events.named("start").first?["ignoredOther"] as? Int == 1)
        let failed = events.files("failed")
        #expect(failed.count == 1 && (failed.first?["input"] as? String)?.hasSuffix("link.png") == true, "\(scanned.stdout)")
        #expect((failed.first?["error"] as? String)?.contains("it is a named pipe (FIFO)") == true, "\(scanned.stdout)")
        #expect(events.files("written").count == 1)
        // The text output says it once, apart from the files that are not images by their name.
        let text = try kiln(["export", folder, "-o", dir.join("text"), "--progress", "bar"], timeout: limit)
        #expect(text.stderr.contains("ignored 1 special file (a named pipe, a socket or a device: never read)"),
                "\(text.stderr)")

        // Named on the command line: a usage error at once, nothing created.
        let named = try kiln(["export", folder + "/pipe.png", "-o", dir.join("named")], timeout: limit)
        #expect(named.status == 64, "\(named.stderr)")
        #expect(named.stderr.contains("it is a named pipe (FIFO), not an image file or a folder"), "\(named.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.join("named")))

        // In a `-` list: fails alone.
        let listed = try kiln(["export", "-", "-o", dir.join("listed"), "--progress", "json"],
                              stdin: folder + "/pipe.png\n" + folder + "/ok.png\n", timeout: limit)
        #expect(listed.status == 1, "\(listed.stderr)")
        #expect(Events(listed.stdoutLines).files("failed").count == 1 && Events(listed.stdoutLines).files("written").count == 1,
                "\(listed.stdout)")

        // As a watermark: refused before the job starts, naming it.
        let mark = try kiln(["export", folder + "/ok.png", "-o", dir.join("marked"), "--watermark", folder + "/pipe.png"],
                            timeout: limit)
        #expect(mark.status == 64, "\(mark.stderr)")
        #expect(mark.stderr.contains("cannot read the watermark \(folder)/pipe.png: not an image file: it is a named pipe"),
                "\(mark.stderr)")
    }

    @Test func aFolderTheScanCannotListFailsAsOneItem() throws {
        let dir = try TemporaryDirectory()
        #expect(chmod(dir.path, 0o755) == 0, "the other user must reach the folders")
        let sub = dir.join("photos/closed")
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("photos/ok.png"))
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: sub + "/hidden.png")
        #expect(chmod(dir.join("photos"), 0o755) == 0)
        #expect(chmod(sub, 0) == 0)
        defer { chmod(sub, 0o755) }
        let out = dir.join("out")
        #expect(mkdir(out, 0o777) == 0 && chmod(out, 0o777) == 0, "the other user writes the outputs")

        let r = try kilnDenied(["export", dir.join("photos"), "--recursive", "-o", out, "--progress", "json"])
        #expect(r.status == 1, "\(r.stdout)\n\(r.stderr)")
        let failed = Events(r.stdoutLines).files("failed")
        #expect(failed.count == 1, "\(r.stdout)")
        #expect(failed.first?["input"] as? String == sub, "\(r.stdout)")
        #expect((failed.first?["error"] as? String) == "cannot list this folder (Permission denied), so the images in it "
                + "were not exported", "\(r.stdout)")
        #expect(Events(r.stdoutLines).files("written").count == 1)
    }

    /// Under --recursive a symbolic link to a folder is not followed (links can loop): it was passed over in silence,
    /// and its images looked exported. Now it is an `ignored` event and a line of the text output.
    @Test func aLinkedFolderUnderRecursiveIsSaid() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("photos/real"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.join("elsewhere"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("photos/real/a.png"))
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("elsewhere/b.png"))
        try FileManager.default.createSymbolicLink(atPath: dir.join("photos/linked"), withDestinationPath: dir.join("elsewhere"))
        let r = try kiln(["export", dir.join("photos"), "--recursive", "-o", dir.join("out"), "--progress", "json"], timeout: limit)
        #expect(r.status == 0, "\(r.stderr)")
        let events = Events(r.stdoutLines)
        #expect(events.files("written").count == 1)
        let ignored = events.named("ignored")
        #expect(ignored.count == 1 && ignored.first?[string: "path"] == dir.join("photos/linked")
                && ignored.first?[string: "reason"].contains("symbolic link to a folder") == true, "\(r.stdout)")
        let text = try kiln(["export", dir.join("photos"), "--recursive", "-o", dir.join("text"), "--progress", "bar"], timeout: limit)
        #expect(text.stderr.contains("ignored 1 symbolic link to a folder (--recursive follows none"), "\(text.stderr)")
        #expect(!text.stderr.contains("special file"), "\(text.stderr)")
    }
}
