import Foundation
import KilnTestSupport
import Testing

/// `--in-place` (mogrify's way): each input is replaced, atomically, by exactly
/// what an export into a folder would write; the journal (`./.kiln`) tells a
/// resume which inputs are already done, so none is processed twice.
@Suite(.serialized) struct InPlaceTests {
    /// Copies of `names` from `source` into `dir/in`.
    private func copies(_ names: [String], from source: String, into dir: TemporaryDirectory) throws {
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        for name in names { try FileManager.default.copyItem(atPath: source + "/" + name, toPath: dir.join("in/" + name)) }
    }

    private func differences(_ names: [String], _ a: String, _ b: String) -> [String] {
        names.filter { !FileManager.default.contentsEqual(atPath: a + "/" + $0, andPath: b + "/" + $0) }
    }

    /// SampleData's PNGs copied into `dir/in`, exported with `operations` into `dir/ref` (what each must become), and
    /// an in-place run of them from `dir` stopped after 3 images (a stall, `--stall-timeout 1`): their names.
    private func stoppedAfterThree(_ dir: TemporaryDirectory, _ operations: [String]) throws -> [String] {
        let names = Paths.pngs(in: Paths.sampleData)
        try copies(names, from: Paths.sampleData, into: dir)
        #expect(try kiln(["export", Paths.sampleData, "--output", dir.join("ref"), "--progress", "none"]
                         + operations).status == 0)
        let stopped = try startKiln(["export", "--in-place", "in", "--progress", "none", "--jobs", "1",
                                     "--stall-timeout", "1"] + operations,
                                    environment: ["KILN_TEST_STALL_AFTER": "3"], directory: dir.path).wait()
        #expect(stopped.status == 75, "\(stopped.stderr)")
        return names
    }

    @Test func eachInputIsReplacedByWhatAnExportWouldWrite() throws {
        let dir = try TemporaryDirectory()
        let names = Paths.pngs(in: Paths.sampleData)
        try copies(names, from: Paths.sampleData, into: dir)
        let operations = ["--resize", "24x24", "--brightness", "0.1"]
        #expect(try kiln(["export", Paths.sampleData, "--output", dir.join("ref"), "--progress", "none"] + operations).status == 0)
        let r = try startKiln(["export", "--in-place", "in", "--progress", "json"] + operations, directory: dir.path).wait()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Events(r.stdoutLines).files("written").count == names.count)
        #expect(differences(names, dir.join("in"), dir.join("ref")) == [])
        #expect(Paths.pngs(in: dir.join("in")) == names, "no other file left beside the inputs")
        #expect(!FileManager.default.fileExists(atPath: dir.join(".kiln")))
        let both = try kiln(["export", "--in-place", dir.join("in"), "--output", dir.join("o")])
        #expect(both.status == 64)
    }

    @Test func anInterruptedRunResumesWithoutProcessingAnyInputTwice() throws {
        let dir = try TemporaryDirectory()
        let names = LargeImages.outputs(in: LargeImages.directory)
        try copies(names, from: LargeImages.directory, into: dir)
        let operations = ["--brightness", "0.1"]  // applied twice, it would show
        #expect(try kiln(["export", LargeImages.directory, "--output", dir.join("ref"), "--progress", "none"]
                         + operations).status == 0)
        let child = try startKiln(["export", "--in-place", "in", "--progress", "json", "--jobs", "1",
                                   "--stall-timeout", "600"] + operations,
                                  environment: ["KILN_TEST_STALL_AFTER": "3"], directory: dir.path)
        #expect(child.waitUntil { child.stdoutSoFar.components(separatedBy: "\"status\":\"written\"").count == 4 })
        child.send(SIGINT)
        #expect(try child.wait(timeout: .seconds(60)).status == 75)
        #expect(differences(names, dir.join("in"), dir.join("ref")).count == names.count - 3)

        let resumed = try startKiln(["resume", ".", "--progress", "json"], directory: dir.path).wait()
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(Events(resumed.stdoutLines).files("written").count == names.count - 3)
        // Its outputs are named as the export named them: the inputs' own paths (they were `/tmp/…/./in/a.png`).
        #expect(Events(resumed.stdoutLines).named("file").allSatisfy { $0["output"] as? String == $0["input"] as? String },
                "\(resumed.stdout)")
        #expect(differences(names, dir.join("in"), dir.join("ref")) == [], "every input replaced exactly once")
    }

    /// The same command again after a stop (not `kiln resume`): the journal's records tell the inputs already
    /// replaced from the rest. Before, it processed them again (brightened twice) and exited 0. With other
    /// options the start is refused, nothing written and the stopped run's journal kept: the new options would
    /// stack on its work (a first fix kept them as conflicts, but the start forgot the run's records). Another
    /// export from the same folder (other inputs in place, or `-o .`, where the journal is) is refused too: it
    /// took the journal over, exited 0 and removed it, and the first command again brightened the 3 twice. So is the
    /// same command naming the inputs otherwise (`./in`), whose records go by the names the run gave them.
    @Test(arguments: ["same", "otherOptions", "otherInputs", "outputHere", "namedOtherwise"])
    func theSameCommandAgainAfterAStopProcessesNoInputTwice(again kind: String) throws {
        let dir = try TemporaryDirectory()
        let operations = ["--brightness", "0.1"]  // applied twice, it would show
        let names = try stoppedAfterThree(dir, operations)
        let done = names.filter { differences([$0], dir.join("in"), dir.join("ref")).isEmpty }
        #expect(done.count == 3)

        try FileManager.default.createDirectory(atPath: dir.join("other"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("other/o.png"))
        let command = switch kind {
        case "otherOptions": ["export", "--in-place", "in", "--brightness", "0.2"]
        case "otherInputs": ["export", "--in-place", "other"] + operations
        case "outputHere": ["export", "other", "-o", "."] + operations
        case "namedOtherwise": ["export", "--in-place", "./in"] + operations
        default: ["export", "--in-place", "in"] + operations
        }
        let again = try startKiln(command + ["--progress", "json"], directory: dir.path).wait()
        let events = Events(again.stdoutLines)
        if kind != "same" {
            #expect(again.status == 64, "\(again.stderr)")
            let error = events.named("error").first?[string: "message"] ?? ""
            #expect(error.hasPrefix("3 inputs (") && error.contains("nothing was written"), "\(again.stdout)")
            let why = ["otherOptions": "would stack on its work", "namedOtherwise": "names them otherwise"][kind] ?? "process them twice"
            #expect(error.contains(why), "\(error)")
            #expect(!FileManager.default.fileExists(atPath: dir.join("o.png")), "nothing written by -o .")
            #expect(try Data(contentsOf: URL(fileURLWithPath: dir.join("other/o.png")))
                        == Data(contentsOf: URL(fileURLWithPath: Paths.sampleData + "/rgb8.png")), "nor in place")
            #expect(differences(done, dir.join("in"), dir.join("ref")) == [], "the stopped run's outputs are kept")
            #expect(differences(names, dir.join("in"), dir.join("ref")).count == names.count - 3, "nothing else written")
            // The stopped run's journal is intact: its resume finishes it.
            let resumed = try startKiln(["resume", ".", "--progress", "none"], directory: dir.path).wait()
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(differences(names, dir.join("in"), dir.join("ref")) == [], "every input replaced exactly once")
        } else {
            #expect(again.status == 0, "\(again.stderr)")
            #expect(events.files("skipped").count == 3 && events.files("written").count == names.count - 3, "\(again.stdout)")
            #expect(differences(names, dir.join("in"), dir.join("ref")) == [], "every input replaced exactly once")
        }
    }

    /// The same command again, itself stopped before it came to every input the first run replaced, then resumed or
    /// run once more: no input is processed twice. Its start forgot the first run's records and wrote them again one
    /// by one as it found each input replaced: stopped meanwhile, the next run processed the rest a second time (a
    /// user's retry of a failure, stopped, rotated 65 of 70 photos twice, exit 0). The records go into its journal as
    /// its start makes it.
    @Test(arguments: ["resume", "same"])
    func theSameCommandAgainStoppedEarlyForgetsNothing(then next: String) throws {
        let dir = try TemporaryDirectory()
        let operations = ["--brightness", "0.1"]  // applied twice, it would show
        let names = try stoppedAfterThree(dir, operations)
        #expect(differences(names, dir.join("in"), dir.join("ref")).count == names.count - 3)
        // Stopped once it has come to the first of the three.
        let again = try startKiln(["export", "--in-place", "in", "--progress", "json", "--jobs", "1", "--stall-timeout", "1"]
                                  + operations, environment: ["KILN_TEST_STALL_AFTER": "1"], directory: dir.path).wait()
        #expect(again.status == 75, "\(again.stderr)")
        #expect(Events(again.stdoutLines).files("written").isEmpty, "\(again.stdout)")
        let command = next == "resume" ? ["resume", "."] : ["export", "--in-place", "in"] + operations
        let last = try startKiln(command + ["--progress", "json"], directory: dir.path).wait()
        #expect(last.status == 0, "\(last.stderr)")
        #expect(Events(last.stdoutLines).files("written").count == names.count - 3, "\(last.stdout)")
        #expect(differences(names, dir.join("in"), dir.join("ref")) == [], "every input replaced exactly once")
    }

    /// Files the stopped run replaced, renamed since (their folder, or one of them), are found by their content: the
    /// same command on them is refused, nothing written, and with their names given back the resume finishes the job.
    /// Before, taken for originals, they were processed a second time (6 of 20 photos turned twice, exit 0), and the
    /// stopped run's journal went.
    @Test(arguments: ["folder", "file", "folderFromInside"])
    func filesTheStoppedRunReplacedAreKnownUnderOtherNames(renamed what: String) throws {
        let dir = try TemporaryDirectory()
        let operations = ["--brightness", "0.1"]  // applied twice, it would show
        let names = try stoppedAfterThree(dir, operations)
        let done = try #require(names.first { differences([$0], dir.join("in"), dir.join("ref")).isEmpty })
        let (from, to, folder) = what == "file" ? (dir.join("in/" + done), dir.join("in/renamed-" + done), "in")
            : (dir.join("in"), dir.join("moved"), "moved")
        try FileManager.default.moveItem(atPath: from, toPath: to)
        // From inside the renamed folder, the stopped job's journal is found above it (its own names none of these).
        let inside = what == "folderFromInside"
        let again = try startKiln(["export", "--in-place", inside ? "." : folder, "--progress", "json"] + operations,
                                  directory: inside ? to : dir.path).wait()
        #expect(again.status == 64, "\(again.stderr)")
        let error = Events(again.stdoutLines).named("error").first?[string: "message"] ?? ""
        #expect(inside ? error.hasPrefix("3 of these inputs belong to an unfinished in-place job whose journal is ")
                    : error.contains("which it named in/\(done)") && error.contains("would process them a second time"),
                "\(error)")
        #expect(error.contains("nothing was written"), "\(error)")
        try FileManager.default.moveItem(atPath: to, toPath: from)
        #expect(differences(names, dir.join("in"), dir.join("ref")).count == names.count - 3, "nothing written")
        let resumed = try startKiln(["resume", ".", "--progress", "none"], directory: dir.path).wait()
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(differences(names, dir.join("in"), dir.join("ref")) == [], "every input replaced exactly once")
    }

    /// The same in-place command run from another folder after a stop (`cd in && kiln export --in-place .`) had a
    /// journal of its own: it processed the stopped job's replaced inputs a second time, and that job's resume then
    /// did the rest again. It is refused, naming the stopped job's journal, from the inputs' folder or anywhere.
    @Test func theSameInPlaceJobFromAnotherFolderIsRefused() throws {
        let dir = try TemporaryDirectory()
        let operations = ["--brightness", "0.1"]
        let names = try stoppedAfterThree(dir, operations)
        try FileManager.default.createDirectory(atPath: dir.join("elsewhere"), withIntermediateDirectories: true)
        for (input, folder) in [(".", dir.join("in")), (dir.join("in"), dir.join("elsewhere"))] {
            let again = try startKiln(["export", "--in-place", input, "--progress", "json"] + operations, directory: folder).wait()
            #expect(again.status == 64, "\(folder): \(again.stderr)")
            #expect(Events(again.stdoutLines).named("error").first?[string: "message"]
                        .contains("belong to an unfinished in-place job whose journal is ") == true, "\(again.stdout)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/.kiln"), "\(folder): no journal folder left")
        }
        #expect(differences(names, dir.join("in"), dir.join("ref")).count == names.count - 3, "nothing else written")
        let resumed = try startKiln(["resume", ".", "--progress", "none"], directory: dir.path).wait()
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(differences(names, dir.join("in"), dir.join("ref")) == [], "every input replaced exactly once")
    }

    /// Before: an in-place run started in the output folder of an unfinished export (one that ended with a
    /// failure, its journal kept for `kiln resume`) took that journal as its own and removed it at its clean end:
    /// `kiln resume` of the export then said the folder held no job. Refused, naming the export's journal.
    @Test func anInPlaceRunDoesNotTakeAnUnfinishedExportsJournal() throws {
        let dir = try TemporaryDirectory()
        for folder in ["s", "t"] { try FileManager.default.createDirectory(atPath: dir.join(folder), withIntermediateDirectories: true) }
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("s/a.png"))
        #expect(FileManager.default.createFile(atPath: dir.join("s/bad.png"), contents: Data("not a png".utf8)))
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/gray8.png", toPath: dir.join("t/c.png"))
        let export = try startKiln(["export", "s", "-o", "o", "--progress", "none"], directory: dir.path).wait()
        #expect(export.status == 1, "\(export.stderr)")
        let before = try Data(contentsOf: URL(fileURLWithPath: dir.join("t/c.png")))
        let inPlace = try startKiln(["export", "--in-place", "../t/c.png", "--brightness", "0.1", "--progress", "json"],
                                   directory: dir.join("o")).wait()
        #expect(inPlace.status == 64, "\(inPlace.stderr)")
        #expect(Events(inPlace.stdoutLines).named("error").first?[string: "message"]
                    .contains("holds the journal of an unfinished export into this folder") == true, "\(inPlace.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.join("t/c.png"))) == before, "nothing written")
        let status = try kiln(["status", dir.join("o"), "--json"])
        #expect(status.status == 0 && status.stdout.contains("\"total\":2"), "the export's journal is still its own: \(status.stdout)")

        // A finished export's journal kept with --keep-journal is its own too (before, taken over, with false conflicts).
        try FileManager.default.removeItem(atPath: dir.join("s/bad.png"))
        let kept = try startKiln(["export", "s", "-o", "k", "--keep-journal", "--progress", "none"], directory: dir.path).wait()
        #expect(kept.status == 0, "\(kept.stderr)")
        let overKept = try startKiln(["export", "--in-place", "../t/c.png", "--brightness", "0.1", "--progress", "none"],
                                     directory: dir.join("k")).wait()
        #expect(overKept.status == 64 && overKept.stderr.contains("holds the journal of an export into this folder, kept"),
                "\(overKept.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.join("t/c.png"))) == before, "nothing written")
    }

    /// A resume found a replaced input that something else had changed since (another run, from another folder,
    /// processed it) "lost" and processed it again, on top. It is kept as it is now, with a warning; only an input
    /// still as it was read (the rename had not happened) is made again.
    @Test func aResumeLeavesAReplacedInputChangedSinceAsItIs() throws {
        let dir = try TemporaryDirectory()
        let operations = ["--brightness", "0.1"]
        let names = try stoppedAfterThree(dir, operations)
        let done = names.filter { differences([$0], dir.join("in"), dir.join("ref")).isEmpty }
        let changed = try #require(done.first)
        let other = try Data(contentsOf: URL(fileURLWithPath: Paths.sampleData + "/" + (changed == "rgb8.png" ? "gray8.png" : "rgb8.png")))
        try other.write(to: URL(fileURLWithPath: dir.join("in/" + changed)))
        let resumed = try startKiln(["resume", ".", "--progress", "json"], directory: dir.path).wait()
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.join("in/" + changed))) == other, "kept as it is")
        #expect(Events(resumed.stdoutLines).named("warning").contains {
            $0[string: "message"].hasPrefix("in/" + changed + ": changed since this job replaced it") }, "\(resumed.stdout)")
        #expect(differences(names.filter { $0 != changed }, dir.join("in"), dir.join("ref")) == [], "the rest once each")
    }

    /// A replaced input moved away before a resume: the resume tried it, failed on the missing file (exit 1) and
    /// recorded that failure over the record of its replacement; the file put back, the next resume brightened it a
    /// second time (exit 0). Its work is done: the resume says it is gone and counts it done, and the job ends.
    @Test func aResumeCountsAReplacedInputMovedAwayDoneAndNeverProcessesItAgain() throws {
        let dir = try TemporaryDirectory()
        let names = try stoppedAfterThree(dir, ["--brightness", "0.1"])
        let done = try #require(names.first { differences([$0], dir.join("in"), dir.join("ref")).isEmpty })
        try FileManager.default.moveItem(atPath: dir.join("in/" + done), toPath: dir.join("aside.png"))
        let resumed = try startKiln(["resume", ".", "--progress", "json"], directory: dir.path).wait()
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(Events(resumed.stdoutLines).named("warning").contains {
            $0[string: "message"].hasPrefix("in/" + done + ": replaced by this job, and no longer there") }, "\(resumed.stdout)")
        try FileManager.default.moveItem(atPath: dir.join("aside.png"), toPath: dir.join("in/" + done))
        let again = try startKiln(["resume", ".", "--progress", "none"], directory: dir.path).wait()
        #expect(again.status == 1, "the job is over: \(again.stderr)")
        #expect(differences(names, dir.join("in"), dir.join("ref")) == [], "every input brightened once")
    }

    /// A clean run's journal kept by --keep-journal is over, as a removed one: the same command again turns the image
    /// again (mogrify run twice), and other options apply on top. Before, the same command skipped it (0 written) and
    /// other options kept it as a conflict "replaced by an earlier run of this job" (exit 1), offering --overwrite,
    /// which in place is refused.
    @Test func aCleanRunsKeptJournalIsOverTheSameCommandAgainTurnsAgain() throws {
        let dir = try TemporaryDirectory()
        try copies(["rgb8.png"], from: Paths.sampleData, into: dir)
        for turn in ["0", "180"] {
            #expect(try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", dir.join("ref" + turn)]
                             + (turn == "0" ? [] : ["--rotate", turn]) + ["--progress", "none"]).status == 0)
        }
        for (index, turn) in ["90", "90", "90"].enumerated() {
            let r = try startKiln(["export", "--in-place", "in", "--rotate", turn, "--keep-journal", "--progress", "json"],
                                  directory: dir.path).wait()
            #expect(r.status == 0, "run \(index + 1): \(r.stderr)")
            #expect(Events(r.stdoutLines).files("written").count == 1, "run \(index + 1): \(r.stdout)")
            if index == 1 { #expect(differences(["rgb8.png"], dir.join("in"), dir.join("ref180")) == [], "turned twice") }
        }
        let other = try startKiln(["export", "--in-place", "in", "--rotate", "90", "--progress", "none"], directory: dir.path).wait()
        #expect(other.status == 0, "\(other.stderr)")
        #expect(differences(["rgb8.png"], dir.join("ref0"), dir.join("in")) == [], "four quarter turns: the original's pixels")
    }

    /// A clean run's journal kept by --keep-journal does not hold back another export from the same folder: the
    /// refusal meant for a stopped run's records refused every later in-place export there. A run that ended with a
    /// failure does: its command again retries the failure and skips the rest, and another export taking the journal
    /// over made that command brighten the done image a second time.
    @Test func aCleanRunsKeptJournalHoldsNothingBackAFailedOnesDoes() throws {
        let dir = try TemporaryDirectory()
        for folder in ["x", "y"] {
            try FileManager.default.createDirectory(atPath: dir.join(folder), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join(folder + "/a.png"))
        }
        let first = try startKiln(["export", "--in-place", "x", "--rotate", "90", "--keep-journal", "--progress", "none"],
                                  directory: dir.path).wait()
        #expect(first.status == 0, "\(first.stderr)")
        let second = try startKiln(["export", "--in-place", "y", "--rotate", "90", "--progress", "none"], directory: dir.path).wait()
        #expect(second.status == 0, "\(second.stderr)")

        try FileManager.default.createDirectory(atPath: dir.join("z"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("z/good.png"))
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]).write(to: URL(fileURLWithPath: dir.join("z/bad.png")))
        let failed = try startKiln(["export", "--in-place", "z", "--brightness", "0.1", "--progress", "none"], directory: dir.path).wait()
        #expect(failed.status == 1, "\(failed.stderr)")
        let other = try startKiln(["export", "--in-place", "y", "--rotate", "90", "--progress", "json"], directory: dir.path).wait()
        #expect(other.status == 64, "\(other.stderr)")
        #expect(Events(other.stdoutLines).named("error").first?[string: "message"].hasPrefix("1 input (z/good.png) was replaced") == true,
                "\(other.stdout)")
    }

    /// Another user's file this one may not write, in a folder this one may: the rename replaced it all the same
    /// (exit 0, no word) and made it this user's. Now it fails alone, kept as it was, as mogrify fails there; the
    /// user's own read-only file is still replaced, keeping its mode. As root the job runs as `nobody`.
    @Test(.enabled(if: geteuid() == 0, "needs root, to own a file as another user than the one kiln runs as"))
    func anotherUsersFileThisOneMayNotWriteIsKept() throws {
        let dir = try TemporaryDirectory()
        #expect(chmod(dir.path, 0o755) == 0)
        let folder = dir.join("in")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["roots.png", "mine.png"] {
            try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: folder + "/" + name)
        }
        #expect(chmod(folder + "/roots.png", 0o644) == 0 && chmod(folder + "/mine.png", 0o444) == 0)
        #expect(chown(folder, 65534, 65534) == 0 && chown(folder + "/mine.png", 65534, 65534) == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: folder + "/roots.png"))
        let r = try ChildProcess("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", Paths.kiln,
                                                      "export", "--in-place", ".", "--rotate", "90", "--progress", "json"],
                                 environment: ["KILN_RUNTIME_DIR": folder + "/.slots"], directory: folder)
            .wait(timeout: .seconds(120))
        #expect(r.status == 1, "\(r.stdout)\n\(r.stderr)")
        let events = Events(r.stdoutLines)
        let failed = events.files("failed")
        #expect(failed.count == 1 && failed[0][string: "error"].contains("belongs to another user (uid 0)"), "\(r.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/roots.png")) == before, "kept as it was")
        var info = stat()
        #expect(stat(folder + "/roots.png", &info) == 0 && info.st_uid == 0, "still root's")
        #expect(events.files("written").count == 1, "\(r.stdout)")
        #expect(stat(folder + "/mine.png", &info) == 0 && info.st_mode & 0o777 == 0o444, "its own read-only file, replaced")
    }
}
