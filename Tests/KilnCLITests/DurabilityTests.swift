import Foundation
import KilnTestSupport
import Testing

/// `--durability` (issue 11): a run of many small images killed with `kill -9`
/// at random moments resumes to exactly the outputs of an uninterrupted run,
/// redoing nothing it had finished; an image is reported only once it is
/// committed; a recorded output the disk lost is redone, alone.
@Suite(.serialized) struct DurabilityTests {
    /// The outputs named by `file` events of `status` in a JSON stream (a line
    /// cut short by `kill -9` is left out: it reported nothing).
    private func reported(_ stdout: String, _ status: String) -> Set<String> {
        Set(stdout.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object[string: "event"] == "file", object[string: "status"] == status else { return nil }
            return (object[string: "output"] as NSString).lastPathComponent
        })
    }

    /// The outputs recorded as written in the journal of `directory`.
    private func recorded(_ directory: String) -> Set<String> {
        let text = (try? String(contentsOfFile: directory + "/.kiln/finished.ndjson", encoding: .utf8)) ?? ""
        return Set(text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object[string: "status"] == "written" else { return nil }
            return object[string: "output"]
        })
    }

    /// Inode and modification time: a file rewritten by a resume changes both.
    private func identity(_ path: String) -> [AnyHashable] {
        let a = (try? FileManager.default.attributesOfItem(atPath: path)) ?? [:]
        return [a[.systemFileNumber] as? Int ?? -1, a[.modificationDate] as? Date ?? Date.distantPast]
    }

    @Test(arguments: ["batch", "none"])
    func killNineAtRandomMomentsThenResume(_ durability: String) throws {
        _ = SmallImages.reference
        let seed = TestSeed()
        var rng = seed.generator
        // Three rounds killed mid-run. On a loaded machine the test reads the events late, and a run may end before
        // the kill lands (seen 2026-11-28 beside a CPU-heavy job: after 66 of 400 images): that round is checked
        // whole and another is tried, up to 8.
        var killedMidRun = 0
        var round = -1
        while killedMidRun < 3 && round < 7 {
            round += 1
            // A random moment: after 1 to count - 1 images were reported.
            let after = 1 + Int(rng.next() % UInt64(SmallImages.count - 1))
            let out = try TemporaryDirectory()
            let child = try startKiln(["export", SmallImages.directory, "--output", out.path, "--progress", "json",
                                       "--durability", durability] + SmallImages.operations,
                                      environment: SmallImages.environment)
            child.waitUntil { child.stdoutSoFar.components(separatedBy: "\"event\":\"file\"").count - 1 >= after }
            child.send(SIGKILL)
            let killed = try child.wait()
            let context = "round \(round), kill after \(after) images, --durability \(durability), \(seed)"
            guard killed.signal == SIGKILL else {
                // The whole run finished before the kill landed: complete, nothing to resume.
                #expect(killed.status == 0 && SmallImages.mismatches(out.path) == [], "\(context): \(killed.stderr)")
                continue
            }
            guard FileManager.default.fileExists(atPath: out.join(".kiln/finished.ndjson")) else {
                // Killed after the last image, while the finished run removed its journal: it is complete.
                #expect(SmallImages.mismatches(out.path) == [], "\(context): the journal was removed before the end")
                continue
            }
            killedMidRun += 1
            // Every image reported written is in place, whole, and recorded: nothing is reported before its commit.
            let journal = recorded(out.path)
            let written = reported(killed.stdout, "written")
            #expect(written.count >= after - 1, "\(context): \(written.count) reported")
            #expect(written.isSubset(of: journal), "\(context): reported but not recorded: \(written.subtracting(journal))")
            let present = Set(Paths.pngs(in: out.path))
            #expect(journal.isSubset(of: present), "\(context): recorded but absent: \(journal.subtracting(present))")
            let names = try FileManager.default.contentsOfDirectory(atPath: out.path)
            #expect(names.allSatisfy { $0 == ".kiln" || $0.hasSuffix(".png") }, "\(context): stray files \(names)")
            // Outputs are staged as unnamed files: the killed process left no temporary file behind.
            let temporaries = (try? FileManager.default.contentsOfDirectory(atPath: out.join(".kiln/tmp"))) ?? []
            #expect(temporaries.isEmpty, "\(context): left in .kiln/tmp: \(temporaries)")
            let before = Dictionary(uniqueKeysWithValues: journal.map { ($0, identity(out.join($0))) })

            let resumed = try kiln(["resume", out.path, "--progress", "json", "--durability", durability])
            #expect(resumed.status == 0, "\(context): \(resumed.stderr)")
            let redone = reported(resumed.stdout, "written")
            #expect(redone.isDisjoint(with: journal), "\(context): resume redid \(redone.intersection(journal))")
            #expect(journal.count + redone.count + reported(resumed.stdout, "skipped").count == SmallImages.count,
                    "\(context): \(journal.count) recorded + \(redone.count) redone")
            #expect(journal.allSatisfy { identity(out.join($0)) == before[$0] }, "\(context): a finished output was rewritten")
            #expect(SmallImages.mismatches(out.path) == [], "\(context)")
        }
        #expect(killedMidRun >= 1, "no run of \(round + 1) was killed before its end (\(seed))")
    }

    /// As a lost write would leave it: the journal records an output whose bytes
    /// are not on the disk. Resume redoes that output and nothing else.
    @Test func resumeRedoesExactlyTheOutputWhoseRecordNoLongerMatches() throws {
        _ = SmallImages.reference
        let out = try TemporaryDirectory()
        let first = try kiln(["export", SmallImages.directory, "--output", out.path, "--progress", "none",
                              "--keep-journal"] + SmallImages.operations, environment: SmallImages.environment)
        #expect(first.status == 0, "\(first.stderr)")
        let victim = "000123.png"
        #expect(recorded(out.path).contains(victim))
        let bytes = try #require(FileManager.default.contents(atPath: out.join(victim)))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: out.join(victim)))
        let others = Paths.pngs(in: out.path).filter { $0 != victim }
        let before = others.map { identity(out.join($0)) }

        let resumed = try kiln(["resume", out.path, "--progress", "json"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let events = Events(resumed.stdoutLines)
        #expect(events.named("file").count == 1, "\(resumed.stdout)")
        #expect(reported(resumed.stdout, "written") == [victim])
        #expect(others.map { identity(out.join($0)) } == before, "resume rewrote an output that matched its record")
        #expect(SmallImages.mismatches(out.path) == [])
    }

    /// `full`, the behaviour before group commit, gives the same outputs as the default.
    @Test func fullDurabilityGivesTheSameOutputs() throws {
        _ = SmallImages.reference
        let out = try TemporaryDirectory()
        let r = try kiln(["export", SmallImages.directory, "--output", out.path, "--progress", "json",
                          "--durability", "full"] + SmallImages.operations, environment: SmallImages.environment)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(reported(r.stdout, "written").count == SmallImages.count)
        #expect(SmallImages.mismatches(out.path) == [])
    }

    /// Where the file system makes no unnamed files (`O_TMPFILE`), outputs are
    /// staged as named temporary files and renamed into place: the same folder,
    /// at every durability, and `--overwrite` replaces through the same path.
    @Test(arguments: ["batch", "full", "none"])
    func namedTemporaryFilesGiveTheSameOutputs(_ durability: String) throws {
        _ = SmallImages.reference
        let out = try TemporaryDirectory()
        var environment = SmallImages.environment
        environment["KILN_TEST_NO_UNNAMED_FILES"] = "1"
        let args = ["export", SmallImages.directory, "--output", out.path, "--progress", "json",
                    "--durability", durability] + SmallImages.operations
        let r = try kiln(args, environment: environment)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(reported(r.stdout, "written").count == SmallImages.count)
        #expect(SmallImages.mismatches(out.path) == [])
        let again = try kiln(args + ["--overwrite"], environment: environment)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(reported(again.stdout, "written").count == SmallImages.count)
        #expect(SmallImages.mismatches(out.path) == [])
        #expect((try? FileManager.default.contentsOfDirectory(atPath: out.join(".kiln/tmp")))?.isEmpty ?? true)
    }

    @Test func anUnknownDurabilityIsAUsageError() throws {
        let out = try TemporaryDirectory()
        let r = try kiln(["export", SmallImages.directory, "--output", out.join("o"), "--durability", "fsync"])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("--durability"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.join("o")))
    }
}
