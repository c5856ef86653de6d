import Foundation
import KilnTestSupport
import Testing

/// Resume converts the rest of a job exactly as it began: a `--profile` ICC file
/// that is gone, or holds another profile, refuses the resume (exit 64) naming
/// the file and why, before anything is written. (Issue 24: resume went on and
/// wrote the remaining images without the conversion and without the profile.)
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/convert"),
                "needs ImageMagick's convert to extract an ICC file (Scripts/setup installs it)"))
struct ResumeProfileTests {
    /// A folder with a Display P3 ICC file (`p3.icc`, from an output kiln tagged) and a job
    /// converting SampleData to it, stopped after 2 images.
    private func stoppedJob() throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory()
        let tagged = try kiln(["export", Paths.sampleData + "/rgb8.png", "-o", dir.join("tagged"), "--profile", "p3",
                               "--progress", "none"])
        #expect(tagged.status == 0, "\(tagged.stderr)")
        let extract = try ProcessRunner.run("/usr/bin/convert", [dir.join("tagged/rgb8.png"), dir.join("p3.icc")])
        try #require(extract.status == 0, "convert: \(extract.stderr)")
        let r = try kiln(["export", Paths.sampleData, "-o", dir.join("out"), "--profile", dir.join("p3.icc"),
                          "--jobs", "1", "--stall-timeout", "1", "--progress", "none"],
                         environment: ["KILN_TEST_STALL_AFTER": "2"], timeout: .seconds(60))
        try #require(r.status == 75, "\(r.stderr)")
        return dir
    }

    @Test func resumeRefusesWhenTheProfileFileIsGone() throws {
        let dir = try stoppedJob()
        let before = Paths.pngs(in: dir.join("out"))
        try FileManager.default.removeItem(atPath: dir.join("p3.icc"))
        let r = try kiln(["resume", dir.join("out"), "--progress", "json"])
        #expect(r.status == 64, "\(r.stderr)")
        let message = Events(r.stdoutLines).named("error").first?[string: "message"] ?? ""
        #expect(message.contains(dir.join("p3.icc")) && message.contains("No such file"), "\(message)")
        #expect(Paths.pngs(in: dir.join("out")) == before, "nothing written")
    }

    @Test func resumeRefusesWhenTheProfileFileChanged() throws {
        let dir = try stoppedJob()
        let before = Paths.pngs(in: dir.join("out"))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: dir.join("p3.icc")))
        bytes[bytes.count - 1] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: dir.join("p3.icc")))
        let r = try kiln(["resume", dir.join("out"), "--progress", "none"])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains(dir.join("p3.icc")) && r.stderr.contains("changed"), "\(r.stderr)")
        #expect(Paths.pngs(in: dir.join("out")) == before, "nothing written")
    }

    @Test func resumeWithTheSameProfileFinishesTheJob() throws {
        let dir = try stoppedJob()
        let r = try kiln(["resume", dir.join("out"), "--progress", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Paths.pngs(in: dir.join("out")).count == Paths.pngs(in: Paths.sampleData).count)
    }
}
