@testable import Export
import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// An output found in place without a journal record is judged by what this
/// work makes: the same chunks but for `tIME`, or — made on the other backend —
/// pixels within the documented 1-level agreement, is this same work, skipped;
/// and the record of a skip describes the file kept, so later runs agree.
@Suite struct SameWorkTests {
    /// PngSuite's inputs carrying tIME.
    private let timed = ["cm0n0g04.png", "cm7n0g04.png", "cm9n0g04.png"]

    /// A new export over a stopped one's folder keeps what that run's records said of its outputs, also for those it
    /// does not reach before it is stopped itself: its resume finds them made otherwise (conflicts), as the export
    /// run to its end does. Before, its start forgot them: the resume took the first run's level-6 PNGs (the same
    /// pixels) for this work at level 3, skipped them, and recorded them so.
    @Test func aStoppedExportsRecordsOutliveTheNextStart() throws {
        let dir = try TemporaryDirectory()
        let names = Paths.pngs(in: Paths.sampleData)
        let out = dir.join("out")
        func export(_ level: String, stallAfter: String) throws -> ChildProcess.Outcome {
            try kiln(["export", Paths.sampleData, "--output", out, "--level", level, "--jobs", "1", "--stall-timeout", "1",
                      "--progress", "none"], environment: ["KILN_TEST_STALL_AFTER": stallAfter])
        }
        #expect(try export("6", stallAfter: "4").status == 75)
        #expect(try export("3", stallAfter: "1").status == 75)
        let resumed = try kiln(["resume", out, "--progress", "json"])
        #expect(resumed.status == 1, "conflicts: \(resumed.stderr)")
        let events = Events(resumed.stdoutLines)
        #expect(events.files("skipped").isEmpty, "\(resumed.stdout)")
        // The first run's four: the three the second had not reached, and the one it found (a conflict is looked at again).
        #expect(events.files("conflict").count == 4, "\(resumed.stdout)")
        #expect(events.files("written").count == names.count - 4, "\(resumed.stdout)")
    }

    /// Another export into the folder of an unfinished one says that it takes that one's journal's place (nothing said
    /// so: `kiln resume` could no longer finish the first, and `kiln status` showed only the second); the same
    /// command again, which continues the same work, says nothing of it.
    @Test func anotherExportOverAnUnfinishedOneSaysItTakesItsPlace() throws {
        let dir = try TemporaryDirectory()
        let out = dir.join("out")
        func export(_ level: String, stallAfter: String?) throws -> ChildProcess.Outcome {
            try kiln(["export", Paths.sampleData, "--output", out, "--level", level, "--jobs", "1", "--stall-timeout", "1",
                      "--progress", "json"], environment: stallAfter.map { ["KILN_TEST_STALL_AFTER": $0] } ?? [:])
        }
        func warnings(_ r: ChildProcess.Outcome) -> [String] {
            Events(r.stdoutLines).named("warning").compactMap { $0["message"] as? String }.filter { $0.contains("unfinished") }
        }
        #expect(try export("6", stallAfter: "2").status == 75)
        let again = try export("6", stallAfter: "3")
        #expect(again.status == 75 && warnings(again).isEmpty, "\(again.stdout)")
        // The same options over only what it left (its finished images stay made): the same work, nothing said.
        let journal = (try? String(contentsOfFile: out + "/.kiln/finished.ndjson", encoding: .utf8)) ?? ""
        let left = Paths.pngs(in: Paths.sampleData).filter { !journal.contains("\"output\":\"\($0)\"") }
        #expect(!left.isEmpty && left.count < Paths.pngs(in: Paths.sampleData).count, "\(journal)")
        let rest = try kiln(["export"] + left.map { Paths.sampleData + "/" + $0 } + ["--output", out, "--level", "6", "--jobs", "1",
                            "--stall-timeout", "1", "--progress", "json"], environment: ["KILN_TEST_STALL_AFTER": "1"])
        #expect(rest.status == 75 && warnings(rest).isEmpty, "\(rest.stdout)")
        // Its count is the journal's records (it said what the stopped run last published, up to a batch behind).
        let recorded = try String(contentsOfFile: out + "/.kiln/finished.ndjson", encoding: .utf8).split(separator: "\n").count
        let other = try export("3", stallAfter: nil)
        let said = warnings(other)
        #expect(said.first?.contains(", \(recorded) of \(left.count) done)") == true, "\(recorded) records: \(said)")
        #expect(said.count == 1 && said.first?.contains("\(out) held an unfinished job (Exporting ") == true
                && said.first?.contains("of other work; this export takes its journal's place, so `kiln resume \(out)` "
                                        + "can no longer finish that one") == true, "\(other.stdout)")
    }

    /// A job whose every image has its record has ended (its journal kept for a conflict): the warning said "an
    /// unfinished job (…, 1 of 1 done)".
    @Test func anotherExportOverAnEndedJobsJournalSaysItEnded() throws {
        let dir = try TemporaryDirectory()
        let out = dir.join("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: out + "/rgb8.png", contents: Data("not kiln's".utf8)))
        let input = Paths.sampleData + "/rgb8.png"
        #expect(try kiln(["export", input, "--output", out, "--progress", "none"]).status == 1, "a conflict")
        let other = try kiln(["export", input, "--output", out, "--level", "3", "--overwrite", "--progress", "json"])
        let said = Events(other.stdoutLines).named("warning").compactMap { $0["message"] as? String }
            .filter { $0.contains("of other work") }
        #expect(said.count == 1 && said.first?.contains("\(out) held the journal of an ended job (Exporting 1 image, 1 of 1 done, "
                                                       + "1 failed or kept as conflicts) of other work") == true
                && said.first?.contains("can no longer retry that one") == true, "\(other.stdout)")
    }

    /// Before: the third run of an untouched folder reported 3 conflicts and exited 1
    /// (the second run's skip recorded the checksum of bytes it made and dropped).
    @Test func anUntouchedFolderWithTimeStampsNeverConflictsWithItself() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        for name in timed {
            try FileManager.default.copyItem(atPath: Paths.pngSuite + "/" + name, toPath: dir.join("in/" + name))
        }
        let out = dir.join("out")
        let export = ["export", dir.join("in"), "--output", out, "--progress", "json"]
        // Runs at different times (their tIME differs): the first removes its journal after success.
        let first = try kiln(export, environment: ["SOURCE_DATE_EPOCH": "1700000000"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + "/.kiln"))
        for (run, epoch) in [(2, "1700000100"), (3, "1700000200")] {
            let r = try kiln(export + ["--keep-journal"], environment: ["SOURCE_DATE_EPOCH": epoch])
            #expect(r.status == 0, "run \(run): \(r.stderr)")
            #expect(Events(r.stdoutLines).files("conflict").isEmpty, "run \(run): \(r.stdout)")
            #expect(Events(r.stdoutLines).files("skipped").count == timed.count, "run \(run)")
        }
    }

    /// A clean run removes its journal, and the user's cache keeps what made its outputs
    /// (`MadeCache`): the same export again skips them unread — no input is opened for
    /// decoding (`KILN_TEST_PAUSE_DECODE`'s mark never appears). An input touched since, or
    /// a run with another cache, makes its outputs again and compares them: still skips.
    @Test func theSameExportAgainSkipsItsOutputsUnread() throws {
        let dir = try TemporaryDirectory()
        let out = dir.join("out")
        let export = ["export", Paths.sampleData, "--output", out, "--resize", "40x40", "--device", "cpu", "--progress", "json"]
        let first = try kiln(export)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + "/.kiln"))
        let written = Events(first.stdoutLines).files("written").count
        #expect(written > 1)
        // Each pause's release exists already: a decode leaves `<pause>.paused` and goes on at once.
        func pause(_ name: String) -> String {
            let path = dir.join(name)
            #expect(FileManager.default.createFile(atPath: path, contents: Data()), "\(path) not made")
            return path
        }

        let cached = pause("cached")
        let again = try kiln(export, environment: ["KILN_TEST_PAUSE_DECODE": cached])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(Events(again.stdoutLines).files("skipped").count == written, "\(again.stdout)")
        #expect(!FileManager.default.fileExists(atPath: cached + ".paused"), "an input was decoded to skip its output")

        let uncached = pause("uncached")
        let compared = try kiln(export, environment: ["KILN_TEST_PAUSE_DECODE": uncached, "XDG_CACHE_HOME": dir.join("other-cache")])
        #expect(compared.status == 0, "\(compared.stderr)")
        #expect(Events(compared.stdoutLines).files("skipped").count == written, "\(compared.stdout)")
        #expect(FileManager.default.fileExists(atPath: uncached + ".paused"), "no input decoded without the cache: the test shows nothing")

        // One input touched: its record no longer matches, so it alone is made again (and is the same work).
        let copy = dir.join("in")
        try FileManager.default.copyItem(atPath: Paths.sampleData, toPath: copy)
        let touchedExport = ["export", copy, "--output", dir.join("out2"), "--resize", "40x40", "--device", "cpu", "--progress", "json"]
        #expect(try kiln(touchedExport).status == 0)
        let input = copy + "/" + Paths.pngs(in: copy)[0]
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: input)
        let touched = pause("touched")
        let redone = try kiln(touchedExport, environment: ["KILN_TEST_PAUSE_DECODE": touched])
        #expect(redone.status == 0, "\(redone.stderr)")
        #expect(Events(redone.stdoutLines).files("skipped").count == written, "\(redone.stdout)")
        #expect(FileManager.default.fileExists(atPath: touched + ".paused"), "the touched input was not made again")
    }

    /// What an option does not bear on is the same work: `--level` of a JPEG output, a JPEG's `--quality 85` said or
    /// not. Before, a run with `--level 9` skipped the JPEG (its bytes compared equal) and recorded itself as what made
    /// it, and under the journal it kept every later run of the first command called the output a conflict, for good.
    @Test func optionsThatDoNotBearOnAnOutputAreTheSameWork() throws {
        let dir = try TemporaryDirectory()
        let input = dir.join("in")
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let jpeg = try #require(try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", dir.join("made"),
                                          "--format", "jpeg", "--progress", "none"]).status == 0 ? dir.join("made/rgb8.jpg") : nil)
        try FileManager.default.copyItem(atPath: jpeg, toPath: input + "/photo.jpg")
        let out = dir.join("out")
        func export(_ flags: [String]) throws -> (skipped: Int, conflicts: Int) {
            let r = try kiln(["export", input, "--output", out, "--device", "cpu", "--progress", "json"] + flags)
            let events = Events(r.stdoutLines)
            return (events.files("skipped").count, events.files("conflict").count)
        }
        #expect(try export([]) == (0, 0))
        #expect(try export(["--level", "9", "--keep-journal"]) == (1, 0))
        #expect(try export([]) == (1, 0), "the first command's output is its own")
        #expect(try export(["--quality", "85", "--keep-journal"]) == (1, 0))
        #expect(try export(["--format", "jpeg", "--keep-journal"]) == (1, 0))
        #expect(try export(["--quality", "80"]) == (0, 1), "another quality is other work")
    }

    /// A record in the user's cache stands for the input file that made the output, not for any
    /// file of its name, size and time: another folder's inputs by the same names and sizes,
    /// with the same times, exported into the cleaned output folder are made again and compared,
    /// and other pictures are conflicts. Before, their outputs were skipped unread: the folder
    /// kept the first pictures and the run said it was done (exit 0). The file's change time is
    /// part of what a record names (a later file may be given a removed one's inode number): the
    /// same file with its mode changed is made again, compared, and skipped.
    @Test func aRecordStandsForTheInputFileThatMadeIt() throws {
        let dir = try TemporaryDirectory()
        let time = Date(timeIntervalSince1970: 1_700_000_000)
        // Stored at level 0 (deflate's stored blocks): the same size whatever the pixels.
        for (folder, value) in [("a", UInt8(40)), ("b", UInt8(200))] {
            try FileManager.default.createDirectory(atPath: dir.join(folder), withIntermediateDirectories: true)
            let image = PixelBuffer(width: 32, height: 32, depth: .eight, bytes: [UInt8](repeating: value, count: 32 * 32 * 4))
            let path = dir.join(folder + "/picture.png")
            #expect(FileManager.default.createFile(atPath: path, contents: Data(try PNGEncoder.encode(image, options: .init(level: 0)))))
            try FileManager.default.setAttributes([.modificationDate: time], ofItemAtPath: path)
        }
        let size = { (folder: String) in try FileManager.default.attributesOfItem(atPath: dir.join(folder + "/picture.png"))[.size] as? Int }
        #expect(try size("a") == size("b"), "the test needs inputs alike in size")
        let out = dir.join("out")
        let first = try kiln(["export", dir.join("a"), "--output", out, "--progress", "json"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + "/.kiln"), "no journal: the second run has only the cache")
        #expect(chmod(dir.join("a/picture.png"), 0o600) == 0)
        let pause = dir.join("pause")
        #expect(FileManager.default.createFile(atPath: pause, contents: Data()))
        let again = try kiln(["export", dir.join("a"), "--output", out, "--progress", "json"],
                             environment: ["KILN_TEST_PAUSE_DECODE": pause])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(Events(again.stdoutLines).files("skipped").count == 1, "\(again.stdout)")
        #expect(FileManager.default.fileExists(atPath: pause + ".paused"), "the changed input was skipped unread")
        let second = try kiln(["export", dir.join("b"), "--output", out, "--progress", "json"])
        #expect(second.status == 1, "another picture into an occupied output is a conflict: \(second.stderr)")
        #expect(Events(second.stdoutLines).files("conflict").count == 1, "\(second.stdout)")
        #expect(Events(second.stdoutLines).files("skipped").isEmpty, "\(second.stdout)")
    }

    /// The cache's word counts only from a folder and a file that are the user's alone,
    /// opened without following a link: each refusal makes the outputs again to compare
    /// (the run still skips them), and a clean run then writes a trusted file again.
    @Test func theCacheIsTrustedOnlyWhenItIsTheUsersAlone() throws {
        let dir = try TemporaryDirectory()
        let out = dir.join("out"), cache = dir.join("cache")
        let export = ["export", Paths.sampleData, "--output", out, "--resize", "40x40", "--device", "cpu", "--progress", "json"]
        #expect(try kiln(export, environment: ["XDG_CACHE_HOME": cache]).status == 0)
        let made = cache + "/kiln/made"
        let files = try FileManager.default.contentsOfDirectory(atPath: made).filter { $0.hasSuffix(".ndjson") }
        try #require(files.count == 1, "\(files)")
        let file = made + "/" + files[0]
        #expect((try FileManager.default.attributesOfItem(atPath: made))[.posixPermissions] as? Int == 0o700)
        #expect((try FileManager.default.attributesOfItem(atPath: file))[.posixPermissions] as? Int == 0o600)
        /// Runs the export again; whether it decoded an input (the cache's word did not count).
        func decodes(_ run: String) throws -> Bool {
            let pause = dir.join(run)
            #expect(FileManager.default.createFile(atPath: pause, contents: Data()))
            let again = try kiln(export, environment: ["XDG_CACHE_HOME": cache, "KILN_TEST_PAUSE_DECODE": pause])
            #expect(again.status == 0, "\(run): \(again.stderr)")
            #expect(Events(again.stdoutLines).files("written").isEmpty, "\(run): \(again.stdout)")
            return FileManager.default.fileExists(atPath: pause + ".paused")
        }
        /// The cache file's inode: a clean run writing it anew renames a new file over it.
        func inode() throws -> Int? { try FileManager.default.attributesOfItem(atPath: file)[.systemFileNumber] as? Int }
        let written = try inode()
        #expect(try !decodes("trusted"), "the user's own cache was not used: the test shows nothing")
        #expect(try inode() != written, "the clean run did not write its records: the next check shows nothing")
        // A folder others may write to: not read, and not written.
        #expect(chmod(made, 0o777) == 0)
        let beforeShared = try inode()
        #expect(try decodes("shared folder"))
        #expect(try inode() == beforeShared, "a folder others may write to was written to")
        #expect(chmod(made, 0o700) == 0)
        // The file a link to a copy of itself: not followed (a clean run then replaces the link).
        try FileManager.default.moveItem(atPath: file, toPath: dir.join("copy.ndjson"))
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: dir.join("copy.ndjson"))
        #expect(try decodes("linked file"))
        #expect(try !decodes("rewritten"), "the clean run did not write the records again")
    }

    /// An output skipped on the cache's word is recorded as this run's skip, not as the
    /// earlier run's write: when the run ends with a failure (its journal kept) and the
    /// user then edits that output, the resume keeps the edit (a lost write would be made
    /// again over it).
    @Test func anOutputSkippedOnTheCachesWordIsNeverMadeAgainOverAnEdit() throws {
        let dir = try TemporaryDirectory()
        let input = dir.join("in"), out = dir.join("out")
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let name = Paths.pngs(in: Paths.sampleData)[0]
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/" + name, toPath: input + "/" + name)
        let export = ["export", input, "--output", out, "--resize", "40x40", "--device", "cpu", "--progress", "json"]
        let first = try kiln(export)
        #expect(first.status == 0, "\(first.stderr)")
        // A damaged input beside it: the second run fails it and keeps its journal.
        #expect(FileManager.default.createFile(atPath: input + "/broken.png", contents: Data("not a png".utf8)))
        // Skipped on the cache's word: no input decoded (the damaged one fails before its decode).
        let pause = dir.join("pause")
        #expect(FileManager.default.createFile(atPath: pause, contents: Data()))
        let second = try kiln(export, environment: ["KILN_TEST_PAUSE_DECODE": pause])
        #expect(second.status == 1, "\(second.stderr)")
        #expect(Events(second.stdoutLines).files("skipped").count == 1, "\(second.stdout)")
        #expect(!FileManager.default.fileExists(atPath: pause + ".paused"), "the skip was not the cache's")
        #expect(FileManager.default.fileExists(atPath: out + "/.kiln"), "the failed run kept no journal: the test shows nothing")
        let edited = Data("the user's own bytes".utf8)
        #expect(FileManager.default.createFile(atPath: out + "/" + name, contents: edited))
        let resumed = try kiln(["resume", out, "--progress", "json"])
        #expect(resumed.status == 1, "the damaged input fails again, nothing else: \(resumed.stderr)")
        #expect(FileManager.default.contents(atPath: out + "/" + name) == edited,
                "the edited output was written over: \(resumed.stdout) \(resumed.stderr)")
    }

    /// Before: `kiln resume` wrote over an output the user had replaced since kiln wrote it (a whole image: an
    /// edit), as over a write the disk lost, where the same export command kept it as a conflict; and it trusted
    /// a skipped output by its name, ending clean over a replaced one. Now both are kept as conflicts; an output
    /// cut short (a write the disk lost) is still made again.
    @Test func aResumeKeepsAnOutputChangedSinceAndRedoesOneCutShort() throws {
        let dir = try TemporaryDirectory()
        let input = dir.join("in"), out = dir.join("out")
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let names = Array(Paths.pngs(in: Paths.sampleData).prefix(3))
        for name in names { try FileManager.default.copyItem(atPath: Paths.sampleData + "/" + name, toPath: input + "/" + name) }
        let export = ["export", input, "--output", out, "--device", "cpu", "--progress", "json"]
        #expect(try kiln(export).status == 0)
        // Run again beside a damaged input: names[0…2] are recorded as skips, the journal kept.
        #expect(FileManager.default.createFile(atPath: input + "/broken.png", contents: Data("not a png".utf8)))
        #expect(try kiln(export).status == 1)
        let whole = try PNGEncoder.encode(PixelBuffer(width: 2, height: 2, depth: .eight, bytes: [UInt8](repeating: 90, count: 16)))
        try Data(whole).write(to: URL(fileURLWithPath: out + "/" + names[1]))  // a skipped output replaced by the user
        let again = try kiln(["resume", out, "--progress", "json"])
        #expect(again.status == 1, "\(again.stderr)")
        #expect(Events(again.stdoutLines).files("conflict").compactMap { $0["output"] as? String }.contains { $0.hasSuffix(names[1]) },
                "the replaced skip is a conflict, not a finished image: \(again.stdout)")
        let written = try Data(contentsOf: URL(fileURLWithPath: out + "/" + names[1]))
        #expect(written == Data(whole), "the user's file kept, not trusted as the skip nor made again")
        // A written output the user replaced, and one cut short, in a job whose journal is kept by its failure.
        try FileManager.default.removeItem(atPath: out)
        #expect(try kiln(export).status == 1)
        // Saved with bytes after its end, as some editors leave a trailer: still the user's whole image.
        let edited = Data(whole + Array("trailer".utf8))
        try edited.write(to: URL(fileURLWithPath: out + "/" + names[0]))
        let made = try Data(contentsOf: URL(fileURLWithPath: out + "/" + names[2]))
        try made.prefix(made.count / 2).write(to: URL(fileURLWithPath: out + "/" + names[2]))
        let resumed = try kiln(["resume", out, "--progress", "json"])
        #expect(resumed.status == 1, "\(resumed.stderr)")
        let conflicts = Events(resumed.stdoutLines).files("conflict").compactMap { $0["error"] as? String }
        #expect(conflicts.contains { $0.contains(names[0]) && $0.contains("changed after kiln wrote it") }, "\(resumed.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/" + names[0])) == edited, "the edit kept")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/" + names[2])) == made, "the write cut short made again")
    }

    /// Before: each clean run replaced what the user's cache kept of its output folder: a folder two exports filled
    /// in turn lost the first's records, and the first again with another `--level` took its outputs for the same
    /// work ("skipped", exit 0: the level is not in the pixels compared). The records are merged.
    @Test func theCacheKeepsTheRecordsOfEveryExportIntoAFolder() throws {
        let dir = try TemporaryDirectory()
        let names = Array(Paths.pngs(in: Paths.sampleData).prefix(3))
        for (folder, files) in [("s1", Array(names.prefix(2))), ("s2", [names[2]])] {
            try FileManager.default.createDirectory(atPath: dir.join(folder), withIntermediateDirectories: true)
            for name in files { try FileManager.default.copyItem(atPath: Paths.sampleData + "/" + name, toPath: dir.join(folder + "/" + name)) }
        }
        let cache = ["XDG_CACHE_HOME": dir.join("cache")]
        for folder in ["s1", "s2"] {
            let r = try kiln(["export", dir.join(folder), "-o", dir.join("o"), "--level", "1", "--progress", "none"], environment: cache)
            #expect(r.status == 0, "\(folder): \(r.stderr)")
        }
        let again = try kiln(["export", dir.join("s1"), "-o", dir.join("o"), "--level", "9", "--progress", "json"], environment: cache)
        #expect(again.status == 1, "\(again.stderr)")
        let conflicts = Events(again.stdoutLines).files("conflict").compactMap { $0["error"] as? String }
        #expect(conflicts.count == 2 && conflicts.allSatisfy { $0.contains("level") }, "\(again.stdout)")
    }

    /// Before: `--level 1` into a folder a clean `--level 9` run had made (its journal removed)
    /// said "skipped", exit 0, and kept the level-9 files: the comparison found the same pixels.
    /// The user's cache record of that very file says what made it, so it is a conflict; with
    /// no record anywhere the file alone cannot tell a level (README), and it is a skip.
    @Test(.enabled(if: ImageTools.has("convert"), "needs ImageMagick"))
    func anotherLevelIsAConflictWhileTheCacheRemembersTheFile() throws {
        let dir = try TemporaryDirectory()
        // Photo-like, 480 KB of rows: two levels give two IDATs.
        try ImageTools.run("convert", ["-seed", "28", "-size", "400x300", "plasma:fractal", dir.join("photo.png")])
        let export = ["export", dir.join("photo.png"), "--output", dir.join("out"), "--device", "cpu", "--progress", "json"]
        let cache = ["XDG_CACHE_HOME": dir.join("cache")]
        let first = try kiln(export + ["--level", "9"], environment: cache)
        #expect(first.status == 0, "\(first.stderr)")
        let made = try Data(contentsOf: URL(fileURLWithPath: dir.join("out/photo.png")))
        let other = try kiln(export + ["--level", "1"], environment: cache)
        #expect(other.status == 1, "\(other.stdout)")
        #expect(Events(other.stdoutLines).files("conflict").first?[string: "error"].contains("made with other options") == true,
                "\(other.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.join("out/photo.png"))) == made, "the output was replaced")
        // The same command again: the conflict's journal holds no record of the file, the cache does.
        let again = try kiln(export + ["--level", "1"], environment: cache)
        #expect(again.status == 1 && Events(again.stdoutLines).files("conflict").count == 1, "\(again.stdout)")
        try FileManager.default.removeItem(atPath: dir.join("out/.kiln"))
        let unknown = try kiln(export + ["--level", "1"], environment: ["XDG_CACHE_HOME": dir.join("no-record")])
        #expect(Events(unknown.stdoutLines).files("skipped").count == 1, "\(unknown.stdout)")
        let same = try kiln(export + ["--level", "9"], environment: cache)
        #expect(same.status == 0, "\(same.stdout)")
        #expect(Events(same.stdoutLines).files("skipped").count == 1, "\(same.stdout)")
        // Other options that make the very same file are this work: --strip over an input with nothing to strip.
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("rgb8.png"))
        let bare = ["export", dir.join("rgb8.png"), "--output", dir.join("bare"), "--device", "cpu", "--progress", "json"]
        #expect(try kiln(bare, environment: cache).status == 0)
        let stripped = try kiln(bare + ["--strip"], environment: cache)
        #expect(stripped.status == 0 && Events(stripped.stdoutLines).files("skipped").count == 1, "\(stripped.stdout)")
    }

    /// An output's samples as kiln decodes them.
    private func decoded(_ path: String) throws -> [UInt8] {
        try ImageCodecs.decode(contentsOf: path, limits: DecodingLimits()).bytes
    }

    /// Before: 9 of 24 outputs made with `--device vulkan` were "conflicts" for the
    /// same command on `--device cpu`, exit 1. JPEG and WebP outputs are judged by their
    /// whole file but the coded pixels (and a JPEG's Huffman tables, which follow them).
    @Test(arguments: ["png", "jpeg", "webp"])
    func outputsOfTheSameOptionsOnTheOtherBackendAreTheSameWork(format: String) throws {
        try onDevice("vulkan") {
            let dir = try TemporaryDirectory()
            // At JPEG's default quality the backends' one-level differences quantize away.
            let options = ["--resize", "40x40", "--blur", "1.5", "--sharpen", "1", "--format", format, "--progress", "json"]
                + (format == "jpeg" ? ["--quality", "100"] : [])
            let gpu = try kiln(["export", Paths.sampleData, "--output", dir.join("out"), "--device", "vulkan"] + options)
            #expect(gpu.status == 0, "\(gpu.stderr)")
            // The scenario needs outputs the backends make differently: a clean CPU export beside it.
            let cpu = try kiln(["export", Paths.sampleData, "--output", dir.join("cpu"), "--device", "cpu"] + options)
            #expect(cpu.status == 0, "\(cpu.stderr)")
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir.join("cpu"))) ?? [])
                .filter { !$0.hasPrefix(".") }.sorted()
            let differing = names.filter {
                FileManager.default.contents(atPath: dir.join("out/" + $0)) != FileManager.default.contents(atPath: dir.join("cpu/" + $0))
            }
            #expect(!differing.isEmpty, "the backends made identical bytes: the test shows nothing")

            // A cache of its own: the GPU run's records would skip every output unread, never comparing.
            let noRecord = ["XDG_CACHE_HOME": dir.join("other-cache")]
            let again = try kiln(["export", Paths.sampleData, "--output", dir.join("out"), "--device", "cpu"] + options,
                                 environment: noRecord)
            // A lossy output is judged by its pixels as decoded, and the encoder can turn the backends' one-level
            // difference into more (2026-11-28: rgb8-trns as a JPEG at quality 100, 4 levels in 9 of 3,240 samples): such
            // an output is a conflict, as docs/cli.md says. Each is one whose decoded pixels are more than a level apart.
            let apart = format == "png" ? [] : try names.filter { name in
                let (gpuPixels, cpuPixels) = (try decoded(dir.join("out/" + name)), try decoded(dir.join("cpu/" + name)))
                return zip(gpuPixels, cpuPixels).contains { abs(Int($0) - Int($1)) > 1 }
            }
            #expect(again.status == (apart.isEmpty ? 0 : 1), "\(again.stderr)")
            let conflicts = Events(again.stdoutLines).files("conflict").map { URL(fileURLWithPath: $0[string: "output"]).lastPathComponent }
            #expect(conflicts.sorted() == apart.sorted(), "\(again.stdout)")
            #expect(apart.count <= 3, "the encoder parts few outputs: \(apart)")
            #expect(Events(again.stdoutLines).files("skipped").count == names.count - apart.count)

            // Other options are still a conflict: the tolerance is for pixels, not for work.
            let other = try kiln(["export", Paths.sampleData, "--output", dir.join("out"), "--device", "cpu",
                                  "--resize", "40x40", "--blur", "2", "--sharpen", "1", "--format", format, "--progress", "json"]
                                 + (format == "jpeg" ? ["--quality", "100"] : []),
                                 environment: ["XDG_CACHE_HOME": dir.join("third-cache")])
            #expect(other.status == 1)
            #expect(!Events(other.stdoutLines).files("conflict").isEmpty)
        }
    }
}
