import Foundation
import KilnTestSupport
import Testing

/// SPEC §5: a path named on the command line that is missing or unreadable is a
/// usage error (exit 64) and nothing is created; inside folders and `-` lists a
/// missing path stays a failure of its own item (InputHandlingTests).
/// (Issue 24: `kiln export nope.png -o new` exited 1 and created `new/`.)
@Suite struct NamedInputTests {
    @Test func missingNamedFileIsAUsageErrorAndCreatesNothing() throws {
        let dir = try TemporaryDirectory()
        let r = try kiln(["export", dir.join("nope.png"), Paths.sampleData + "/rgb8.png",
                          "--output", dir.join("new"), "--progress", "json"])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.join("new")), "nothing created")
        let events = Events(r.stdoutLines)
        let message = events.named("error").first?[string: "message"] ?? ""
        #expect(message.contains(dir.join("nope.png")) && message.contains("No such file"), "\(message)")
        #expect(events.named("file").isEmpty)
        #expect(events.all.last?["exitCode"] as? Int == 64)
    }

    @Test func missingNamedFileInPlaceCreatesNoJournal() throws {
        let dir = try TemporaryDirectory()
        let r = try startKiln(["export", "--in-place", "nope.png", "--progress", "none"], directory: dir.path).wait()
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("cannot read the input nope.png"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "no .kiln left behind")
    }

    @Test func pathThroughAFileIsAUsageError() throws {
        let dir = try TemporaryDirectory()
        let r = try kiln(["export", Paths.sampleData + "/rgb8.png/x.png", "--output", dir.join("out"),
                          "--progress", "none"])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("Not a directory"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.join("out")))
    }
}
