import Foundation
import KilnTestSupport
import Testing

/// The `-` list of paths (SPEC §5 inputs): each path is opened exactly as
/// named, or the list is refused before anything is written.
@Suite struct InputListTests {
    private var samples: [String] { Paths.pngs(in: Paths.sampleData).map { Paths.sampleData + "/" + $0 } }

    @Test func nulSeparatedListWithDash0MatchesExportingTheFolder() throws {
        let dir = try TemporaryDirectory()
        let folder = try kiln(["export", Paths.sampleData, "--output", dir.join("folder"), "--progress", "none"])
        #expect(folder.status == 0, "\(folder.stderr)")
        let list = samples.map { $0 + "\0" }.joined()  // as `find … -print0` writes it
        let r = try kiln(["export", "-0", "-", "--output", dir.join("list"), "--progress", "json"], stdin: list)
        #expect(r.status == 0, "\(r.stderr)")
        let names = Paths.pngs(in: dir.join("folder"))
        #expect(names.count == samples.count)
        #expect(Paths.pngs(in: dir.join("list")) == names, "every image under its own name")
        for name in names {
            #expect(FileManager.default.contentsEqual(atPath: dir.join("folder/" + name), andPath: dir.join("list/" + name)),
                    "\(name) differs from the folder export")
        }
        let inputs = Events(r.stdoutLines).files("written").map { $0[string: "input"] }
        #expect(Set(inputs) == Set(samples), "each file event names the file that was read")
    }

    @Test func nulSeparatedListWithoutDash0IsRefusedAndNothingIsWritten() throws {
        let dir = try TemporaryDirectory()
        let list = samples.map { $0 + "\0" }.joined()
        let r = try kiln(["export", "-", "--output", dir.join("out"), "--progress", "json"], stdin: list)
        #expect(r.status == 64, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.join("out")), "nothing written")
        let events = Events(r.stdoutLines)
        #expect(events.named("error").first?[string: "message"].contains("line 1") == true)
        #expect(events.named("error").first?[string: "message"].contains("-0") == true)
        #expect(events.all.last?["exitCode"] as? Int == 64)
        #expect(events.named("file").isEmpty)
    }

    @Test func aControlCharacterInALineIsRefusedNamingTheLine() throws {
        let dir = try TemporaryDirectory()
        let list = samples[0] + "\n" + samples[1] + "\t\n" + samples[2] + "\n"
        let r = try kiln(["export", "-", "--output", dir.join("out"), "--progress", "none"], stdin: list)
        #expect(r.status == 64)
        #expect(r.stderr.contains("line 2") && r.stderr.contains("U+0009"), "\(r.stderr)")
        #expect(!r.stderr.contains("USAGE"), "a bad list is not a bad command line")
        #expect(!FileManager.default.fileExists(atPath: dir.join("out")))
    }
}
