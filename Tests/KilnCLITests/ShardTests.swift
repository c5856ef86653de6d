import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// `kiln export --shard K/N` through the CLI: bad specs, one process per shard,
/// `kill -9` and the same command again, `kiln status` and `kiln cancel` over
/// every shard, and the union of the shards equal to a single-process export.
/// Small generated images keep it quick; the test hook `KILN_TEST_STALL_AFTER`
/// holds a shard in the middle of its work, so "midway" is exact.
@Suite(.serialized) struct ShardTests {
    /// 40 images of different sizes in two folders (found with --recursive), made once.
    static let inputs: String = {
        let dir = testScratch + "/shard-inputs"
        var rng = SeededGenerator(seed: 13)
        for index in 0..<40 {
            let width = 24 + Int(rng.next() % 160), height = 16 + Int(rng.next() % 120)
            let bytes = (0..<(width * height * 4)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let png = try! PNGEncoder.encode(PixelBuffer(width: width, height: height, depth: .eight, bytes: bytes),
                                             options: .init(level: 1))
            let folder = dir + (index % 2 == 0 ? "/even" : "/odd")
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: folder + String(format: "/img%02d.png", index), contents: Data(png))
        }
        return dir
    }()

    static let count = 40

    /// A single-process export of ``inputs``, to compare the shards' union with.
    static let reference: String = {
        let dir = testScratch + "/shard-reference"
        let r = try! kiln(["export", inputs, "--recursive", "--output", dir, "--progress", "none", "--level", "1"])
        precondition(r.status == 0, "reference export failed: \(r.stderr)")
        return dir
    }()

    private func export(_ out: String, _ shard: String, _ extra: [String] = []) -> [String] {
        ["export", Self.inputs, "--recursive", "--output", out, "--level", "1", "--progress", "json", "--jobs", "2",
         "--shard", shard] + extra
    }

    /// The outputs under `directory` (relative paths, sorted), the journal left out.
    private func outputs(_ directory: String) -> [String] {
        let walker = FileManager.default.enumerator(atPath: directory)
        var found: [String] = []
        while let path = walker?.nextObject() as? String {
            if path.hasPrefix(".kiln") { walker?.skipDescendants() } else if path.hasSuffix(".png") { found.append(path) }
        }
        return found.sorted()
    }

    /// Outputs that differ from the single-process export (or are missing or extra).
    private func differences(_ directory: String) -> [String] {
        let names = outputs(Self.reference)
        var wrong = names.filter {
            !FileManager.default.contentsEqual(atPath: Self.reference + "/" + $0, andPath: directory + "/" + $0)
        }
        if outputs(directory) != names { wrong.append("file list: \(outputs(directory).count) of \(names.count)") }
        return wrong
    }

    private func status(_ directory: String) -> [String: Any] {
        let r = try? kiln(["status", directory, "--json"])
        return (try? JSONSerialization.jsonObject(with: Data((r?.stdout ?? "").utf8)) as? [String: Any]) ?? [:]
    }

    private func shards(_ status: [String: Any]) -> [[String: Any]] { status["shards"] as? [[String: Any]] ?? [] }

    private func hostname() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, 255)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    @Test(arguments: ["4/4", "0/0", "a/b", "-1/3", "1/-3", "1/2/3", "", "x"])
    func badSpecsAreUsageErrorsWithTheReason(_ spec: String) throws {
        let out = try TemporaryDirectory()
        let r = try kiln(["export", Self.inputs, "--recursive", "--output", out.path, "--shard", spec])
        #expect(r.status == 64, "\(spec): \(r.stderr)")
        #expect(r.stderr.contains("--shard"), "\(r.stderr)")
        #expect(outputs(out.path).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: out.join(".kiln/shards")), "nothing started")
    }

    @Test func badSpecReasonsNameTheRule() throws {
        let out = try TemporaryDirectory()
        let reasons = ["4/4": "at most 3/4", "0/0": "at least 1", "a/b": "whole numbers", "-1/3": "negative"]
        for (spec, reason) in reasons {
            let r = try kiln(["export", Self.inputs, "--output", out.path, "--shard", spec])
            #expect(r.status == 64 && r.stderr.contains(reason), "\(spec): \(r.stderr)")
        }
    }

    @Test func theUnionOfTheShardsIsTheSingleProcessExport() throws {
        let out = try TemporaryDirectory()
        let children = try (0..<3).map { try startKiln(export(out.path, "\($0)/3")) }
        var written: [String] = []
        for child in children {
            let r = try child.wait()
            #expect(r.status == 0, "\(r.stderr)")
            written += Events(r.stdoutLines).files("written").map { $0[string: "output"] }
        }
        #expect(written.count == Self.count, "each input exported exactly once")
        #expect(Set(written).count == Self.count)
        #expect(differences(out.path) == [])
        let after = status(out.path)
        #expect(after["state"] as? String == "finished")
        #expect(after["completed"] as? Int == Self.count && after["total"] as? Int == Self.count)
        #expect(shards(after).map { $0[string: "state"] } == ["finished", "finished", "finished"])
        #expect(shards(after).map { $0["total"] as? Int ?? 0 }.reduce(0, +) == Self.count)
        // A retry of a finished shard (a Job's or an array's) ends at once, doing nothing.
        let again = try kiln(export(out.path, "1/3"))
        #expect(again.status == 0, "\(again.stderr)")
        #expect(Events(again.stdoutLines).named("file").isEmpty)
    }

    @Test func killNineMidwayThenTheSameCommandFinishesWithoutRedoingAnything() throws {
        let out = try TemporaryDirectory()
        let child = try startKiln(export(out.path, "0/2"), environment: ["KILN_TEST_STALL_AFTER": "6"])
        #expect(child.waitUntil { status(out.path)["completed"] as? Int ?? 0 >= 6 })

        // During: shard 0 runs here (pid, host), shard 1 has not started; the totals cover both.
        let during = status(out.path)
        #expect(during["state"] as? String == "running")
        #expect(during["total"] as? Int == Self.count)
        #expect(during["shardCount"] as? Int == 2)
        let runningShard = shards(during).first ?? [:]
        #expect(runningShard[string: "state"] == "running")
        #expect(runningShard["pid"] as? Int == Int(child.pid))
        #expect(runningShard[string: "host"] == hostname())
        #expect(shards(during).last?[string: "state"] == "notStarted")
        #expect((shards(during).last?["total"] as? Int ?? 0) > 0, "a shard not started still has its size")
        // When it started, what it does, and, while it runs, no exit code (before, only a whole job said these).
        // The job's title says the whole (it was shard 0's own, "Exporting 20 images (shard 0/2)", beside a total of 40).
        #expect(during[string: "subtitle"].contains("PNG level 1") && during[string: "title"] == "Exporting 40 images in 2 shards",
                "\(during)")
        let started = during["started"] as? Double ?? 0
        #expect(abs(started - Date().timeIntervalSince1970) < 600 && (during["updated"] as? Double ?? 0) >= started, "\(during)")
        #expect(runningShard["started"] as? Double == started && runningShard["exitCode"] == nil)

        child.send(SIGKILL)
        #expect(try child.wait().signal == SIGKILL)
        let stopped = status(out.path)
        #expect(shards(stopped).first?["exitCode"] == nil, "killed: no run ended with a code")
        #expect(shards(stopped).first?[string: "state"] == "stopped")
        #expect(stopped["state"] as? String == "incomplete")

        let journal = (try? String(contentsOfFile: out.join(".kiln/shards/0-of-2/finished.ndjson"), encoding: .utf8)) ?? ""
        let recorded = outputs(out.path).filter { journal.contains("\"output\":\"\($0)\"") }
        #expect(recorded.count >= 6)
        func identity(_ name: String) -> [AnyHashable] {
            let a = (try? FileManager.default.attributesOfItem(atPath: out.join(name))) ?? [:]
            return [a[.systemFileNumber] as? Int ?? -1, a[.modificationDate] as? Date ?? Date.distantPast]
        }
        let before = recorded.map(identity)

        let again = try kiln(export(out.path, "0/2"))
        #expect(again.status == 0, "\(again.stderr)")
        let share = shards(status(out.path)).first?["total"] as? Int ?? 0
        #expect(Events(again.stdoutLines).files("written").count == share - recorded.count, "only what was left")
        #expect(recorded.map(identity) == before, "an output the journal recorded was rewritten")

        #expect(try kiln(export(out.path, "1/2")).status == 0)
        #expect(differences(out.path) == [])
        let after = status(out.path)
        #expect(after["state"] as? String == "finished")
        #expect(after["fraction"] as? Double == 1)
        #expect(shards(after).allSatisfy { $0[string: "state"] == "finished" && $0["pid"] == nil })
        #expect(shards(after).allSatisfy { $0["exitCode"] as? Int == 0 }, "\(after)")
    }

    /// Two shards on one machine queue for its CPU slot: `kiln status` says, for the one waiting, what it waits for,
    /// as for a whole job (before, only "queued" and its pid).
    @Test func aQueuedShardSaysWhatItWaitsFor() throws {
        let out = try TemporaryDirectory(), slots = try TemporaryDirectory()
        let shared = ["KILN_RUNTIME_DIR": slots.path]
        let first = try startKiln(export(out.path, "0/2", ["--stall-timeout", "600"]),
                                  environment: shared.merging(["KILN_TEST_STALL_AFTER": "1"]) { $1 })
        #expect(first.waitUntil { first.stdoutSoFar.contains("\"event\":\"file\"") })
        let second = try startKiln(export(out.path, "1/2"), environment: shared)
        #expect(second.waitUntil { second.stdoutSoFar.contains("\"event\":\"queued\"") })
        #expect(second.waitUntil { shards(status(out.path)).last?[string: "state"] == "queued" })
        let waiting = shards(status(out.path)).last ?? [:]
        let holders = waiting["waitingFor"] as? [[String: Any]] ?? []
        #expect(waiting["queuePosition"] as? Int == 1 && holders.first?["pid"] as? Int == Int(first.pid), "\(waiting)")
        #expect(shards(status(out.path)).first?["queuePosition"] == nil, "a running shard waits for nothing")
        let text = try kiln(["status", out.path]).stdout
        #expect(text.contains("shard 1/2  queued") && text.contains("waiting for kiln pid \(first.pid) (Exporting ")
                && text.contains("images (shard 0/2) → "), "\(text)")
        first.send(SIGTERM)
        second.send(SIGTERM)
        #expect(try first.wait(timeout: .seconds(120)).status == 75)
        #expect(try second.wait(timeout: .seconds(120)).status == 75)
    }

    /// Both shards queued behind another job: the job is `queued`, not `running` (it said running, 0 done).
    @Test func shardsAllQueuedAreAQueuedJob() throws {
        let out = try TemporaryDirectory(), other = try TemporaryDirectory(), slots = try TemporaryDirectory()
        let shared = ["KILN_RUNTIME_DIR": slots.path]
        let holder = try startKiln(["export", Paths.sampleData, "--output", other.path, "--progress", "json",
                                    "--stall-timeout", "600"], environment: shared.merging(["KILN_TEST_STALL_AFTER": "1"]) { $1 })
        #expect(holder.waitUntil { holder.stdoutSoFar.contains("\"event\":\"file\"") })
        let shards = try ["0/2", "1/2"].map { try startKiln(export(out.path, $0), environment: shared) }
        for shard in shards { #expect(shard.waitUntil { shard.stdoutSoFar.contains("\"event\":\"queued\"") }) }
        #expect(shards[0].waitUntil { self.shards(status(out.path)).allSatisfy { $0[string: "state"] == "queued" } })
        #expect(status(out.path)["state"] as? String == "queued", "\(status(out.path))")
        #expect(try kiln(["status", out.path]).stdout.hasPrefix("queued: 0/"))
        for child in shards + [holder] { child.send(SIGTERM) }
        for child in shards + [holder] { #expect(try child.wait(timeout: .seconds(120)).status == 75) }
    }

    /// Before: a plain export (or `kiln resume` without `--shard`) that ended cleanly in a folder shards share
    /// removed all of `.kiln`, a running shard's journal and lock with it: `kiln status` and `kiln cancel` then
    /// said the folder held no job, and a retry of that shard could run beside it.
    @Test func aPlainJobEndingInTheFolderLeavesTheShardsJournals() throws {
        let out = try TemporaryDirectory()
        let shard = try startKiln(export(out.path, "1/2"), environment: ["KILN_TEST_STALL_AFTER": "2"])
        defer { shard.send(SIGKILL); _ = try? shard.wait() }
        #expect(shard.waitUntil { status(out.path)["completed"] as? Int ?? 0 >= 2 })
        let plain = try kiln(["export", Self.inputs, "--recursive", "--output", out.path, "--level", "1", "--progress", "none"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.join(".kiln/job.json")), "the plain job's own journal is removed")
        for file in ["job.json", "lock", "finished.ndjson"] {
            #expect(FileManager.default.fileExists(atPath: out.join(".kiln/shards/1-of-2/" + file)), "\(file) kept")
        }
        let during = status(out.path)
        #expect(shards(during).last?[string: "state"] == "running", "\(during)")
        #expect(shards(during).last?["pid"] as? Int == Int(shard.pid))
        // A retry of the running shard is still refused: its lock is the one the shard holds.
        #expect(try kiln(export(out.path, "1/2")).status == 69)
    }

    /// A shard's outputs are known by its journal's records to a plain export or another shard over the same folder:
    /// made at `--level 1`, they are not `--level 9`'s work. Before, neither job had a record of them (shards keep no
    /// cache record), the same pixels were skips (exit 0), and the second job recorded them as its own work.
    @Test(arguments: ["plain", "shard"])
    func anotherJobKnowsAShardsOutputsByItsRecords(_ second: String) throws {
        let out = try TemporaryDirectory()
        #expect(try kiln(export(out.path, "0/1")).status == 0)
        let again = try kiln(["export", Self.inputs, "--recursive", "--output", out.path, "--level", "9", "--progress", "json"]
                             + (second == "plain" ? [] : ["--shard", "0/2"]))
        let events = Events(again.stdoutLines)
        #expect(again.status == 1, "\(again.stderr)")
        #expect(events.files("skipped").isEmpty && !events.files("conflict").isEmpty, "\(again.stdout)")
        #expect(events.files("conflict").allSatisfy { $0[string: "error"].contains("made with other options") }, "\(again.stdout)")
        #expect(differences(out.path) == [], "the level-1 outputs kept")
    }

    /// The cache's record of a clean run's output, stale once shards rewrote it at another level, hid the shards'
    /// records (the cache's won): the first command again found their level-9 outputs the same pixels, skips, exit 0.
    /// The record of the very file there counts, whichever holds it.
    @Test func aShardsRecordCountsOverAStaleCacheRecord() throws {
        let out = try TemporaryDirectory()
        let plain = ["export", Self.inputs, "--recursive", "--output", out.path, "--progress", "json"]
        #expect(try kiln(plain + ["--level", "1"]).status == 0)
        for spec in ["0/2", "1/2"] {
            #expect(try kiln(plain + ["--level", "9", "--overwrite", "--shard", spec]).status == 0)
        }
        let again = try kiln(plain + ["--level", "1"])
        let events = Events(again.stdoutLines)
        #expect(again.status == 1, "\(again.stderr)")
        #expect(events.files("skipped").isEmpty && events.files("conflict").count == Self.count, "\(again.stdout)")
    }

    /// Before: a retry of a finished shard, which ends at once, published its own timing: `kiln status` divided the
    /// shard's finished images by the retry's milliseconds (9157 images/s where the run had done 15), and a retry a
    /// while after the job ended made the job's rate fall as far. The rates stay those of the run that did the work.
    @Test func aRetryOfAFinishedShardKeepsTheRatesOfTheRunThatDidTheWork() throws {
        let out = try TemporaryDirectory()
        #expect(try kiln(export(out.path, "0/2")).status == 0)
        let before = status(out.path)
        let rate = before["imagesPerSecond"] as? Double ?? 0
        #expect(rate > 0, "\(before)")
        usleep(1_500_000)
        let again = try kiln(export(out.path, "0/2"))
        #expect(again.status == 0, "\(again.stderr)")
        #expect(Events(again.stdoutLines).files("written").isEmpty)
        let after = status(out.path)
        #expect(after["imagesPerSecond"] as? Double == rate, "\(after)")
        #expect(after["pixelsPerSecond"] as? Double == before["pixelsPerSecond"] as? Double)
        #expect(shards(after).first?["imagesPerSecond"] as? Double == shards(before).first?["imagesPerSecond"] as? Double)
    }

    /// Before: shards given the same files in another order (`find`'s order differs between hosts) disagreed on
    /// the plan's digest, and `kiln status` warned that they planned different inputs; a retry given the list in
    /// another order started afresh. The plan is the same set of files in any order.
    @Test func theSameFilesListedInAnotherOrderAreTheSamePlan() throws {
        let out = try TemporaryDirectory()
        let files = (FileManager.default.enumerator(atPath: Self.inputs)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".png") }.map { Self.inputs + "/" + $0 }.sorted()
        try #require(files.count == Self.count)
        func shard(_ spec: String, _ list: [String]) throws -> ChildProcess.Outcome {
            try kiln(["export", "-", "--output", out.path, "--level", "1", "--progress", "json", "--shard", spec],
                     stdin: list.joined(separator: "\n") + "\n")
        }
        #expect(try shard("0/2", files).status == 0)
        #expect(try shard("1/2", files.reversed()).status == 0)
        #expect((status(out.path)["warnings"] as? [String]) == [], "\(status(out.path))")
        let retry = try shard("0/2", files.reversed())
        #expect(retry.status == 0, "\(retry.stderr)")
        #expect(Events(retry.stdoutLines).files("written").isEmpty && Events(retry.stdoutLines).files("skipped").isEmpty,
                "the retry continues the shard, which is done: \(retry.stdout)")
        // So do the inputs named on the command line in another order.
        let elsewhere = try TemporaryDirectory()
        func named(_ list: [String]) throws -> ChildProcess.Outcome {
            try kiln(["export"] + list + ["--output", elsewhere.path, "--level", "1", "--progress", "json", "--shard", "1/2"])
        }
        #expect(try named(files).status == 0)
        let again = try named(files.reversed())
        #expect(again.status == 0 && Events(again.stdoutLines).files("written").isEmpty
                    && Events(again.stdoutLines).files("skipped").isEmpty, "\(again.stdout)")
    }

    @Test func aSecondProcessOnTheSameShardExits69OrWaitsWhenAsked() throws {
        let out = try TemporaryDirectory()
        let first = try startKiln(export(out.path, "0/2"), environment: ["KILN_TEST_STALL_AFTER": "2"])
        #expect(first.waitUntil { status(out.path)["completed"] as? Int ?? 0 >= 2 })

        let second = try kiln(export(out.path, "0/2"))
        #expect(second.status == 69, "\(second.stderr)")
        let refusal = Events(second.stdoutLines).named("error").first?[string: "message"] ?? second.stderr
        #expect(refusal.contains("shard 0/2") && refusal.contains("pid \(first.pid)"), "\(refusal)")
        // Another shard runs beside it.
        #expect(try kiln(export(out.path, "1/2")).status == 0)

        // With --strategy queue given, a duplicate waits, and takes over when the first dies.
        let waiting = try startKiln(export(out.path, "0/2", ["--strategy", "queue"]))
        usleep(800_000)
        #expect(try String(contentsOfFile: "/proc/\(waiting.pid)/stat", encoding: .utf8).split(separator: " ")[2] != "Z",
                "the waiting process is still there")
        first.send(SIGKILL)
        _ = try first.wait()
        let took = try waiting.wait(timeout: .seconds(60))
        #expect(took.status == 0, "\(took.stderr)")
        #expect(differences(out.path) == [])
    }

    @Test func cancelStopsEveryShardAndTheirRetriesUntilResumed() throws {
        let out = try TemporaryDirectory()
        let children = try (0..<2).map {
            try startKiln(export(out.path, "\($0)/2"), environment: ["KILN_TEST_STALL_AFTER": "2"])
        }
        #expect(children[0].waitUntil {
            shards(status(out.path)).filter { ($0["completed"] as? Int ?? 0) >= 2 }.count == 2
        })
        let cancel = try kiln(["cancel", out.path])
        #expect(cancel.status == 0, "\(cancel.stderr)")
        #expect(cancel.stdout.contains("2 running shards"), "\(cancel.stdout)")
        for child in children {
            let r = try child.wait(timeout: .seconds(30))
            #expect(r.status == 75, "\(r.stderr)")
        }
        #expect(status(out.path)["cancelled"] is String)
        // The way on that status names is a resume: the export command stops at once under the mark (it named that).
        let text = try kiln(["status", out.path]).stdout
        #expect(text.contains("`kiln resume \(out.path) --shard K/N` continues a shard"), "\(text)")

        let retry = try kiln(export(out.path, "0/2"))
        #expect(retry.status == 75, "a retry of a cancelled shard ends at once: \(retry.stderr)")
        #expect(Events(retry.stdoutLines).named("file").isEmpty)

        let resumed = try kiln(["resume", out.path, "--shard", "0/2", "--progress", "none"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try kiln(export(out.path, "1/2")).status == 0)
        #expect(differences(out.path) == [])
        #expect(status(out.path)["cancelled"] == nil)
    }

    /// One running shard is named with its pid where it runs here, as several are.
    @Test func cancellingOneRunningShardNamesIt() throws {
        let out = try TemporaryDirectory()
        let child = try startKiln(export(out.path, "0/2"), environment: ["KILN_TEST_STALL_AFTER": "2"])
        #expect(child.waitUntil { status(out.path)["completed"] as? Int ?? 0 >= 2 })
        let cancel = try kiln(["cancel", out.path])
        #expect(cancel.status == 0, "\(cancel.stderr)")
        #expect(cancel.stdout.contains("1 running shard stops at its next image (here: 0/2 pid \(child.pid))"), "\(cancel.stdout)")
        #expect(try child.wait(timeout: .seconds(30)).status == 75)
    }

    /// The command a refused retry names, `kiln resume DIR --shard K/N`, for a shard that never started: before,
    /// it said the folder "holds no kiln job" and left the mark, so the shard could never run. Now it lifts the
    /// mark, says there was nothing to resume, and the shard's export then runs. `--shard` on a job that is not
    /// split says so.
    @Test func resumingAShardThatNeverStartedLiftsTheCancel() throws {
        let out = try TemporaryDirectory()
        #expect(try kiln(export(out.path, "0/2")).status == 0)
        #expect(try kiln(["cancel", out.path]).status == 0)
        let refused = try kiln(export(out.path, "1/2"))
        #expect(refused.status == 75, "\(refused.stderr)")
        #expect(refused.stderr.contains("`kiln resume \(out.path) --shard 1/2` lifts the mark"), "\(refused.stderr)")
        let resumed = try kiln(["resume", out.path, "--shard", "1/2", "--progress", "bar"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("shard 1/2 of the job in \(out.path) has not started, so there is nothing to resume"),
                "\(resumed.stderr)")
        #expect(status(out.path)["cancelled"] == nil)
        #expect(try kiln(export(out.path, "1/2")).status == 0)
        #expect(differences(out.path) == [])

        // Another split named: said so (before, "shard 2/4 … has not started").
        let otherSplit = try kiln(["resume", out.path, "--shard", "2/4"])
        #expect(otherSplit.status == 64 && otherSplit.stderr.contains("is split into 2 shards, not 4"), "\(otherSplit.stderr)")

        let plain = try TemporaryDirectory()
        let stopped = try kiln(["export", Paths.sampleData, "-o", plain.path, "--jobs", "1", "--stall-timeout", "1",
                                "--progress", "none"], environment: ["KILN_TEST_STALL_AFTER": "1"])
        #expect(stopped.status == 75, "\(stopped.stderr)")
        let notSplit = try kiln(["resume", plain.path, "--shard", "0/2"])
        #expect(notSplit.status == 64 && notSplit.stderr.contains("holds a job that is not split into shards"),
                "\(notSplit.stderr)")
        let nowhere = try kiln(["status", plain.join("nowhere")])
        #expect(nowhere.stderr.contains("there is no folder ") && nowhere.stderr.contains("/nowhere"), "\(nowhere.stderr)")
    }

    @Test func withoutHardLinksOutputsAreRenamedAndThatIsSaidOnce() throws {
        let out = try TemporaryDirectory()
        var warnings: [String] = []
        for k in 0..<2 {
            let r = try kiln(export(out.path, "\(k)/2"), environment: ["KILN_TEST_NO_HARDLINKS": "1"])
            #expect(r.status == 0, "\(r.stderr)")
            warnings += Events(r.stdoutLines).named("warning").map { $0[string: "message"] }
                .filter { $0.contains("no hard links") }
        }
        #expect(warnings.count == 2, "once per process: \(warnings)")
        #expect(differences(out.path) == [])
    }

    @Test func autoTakesTheShardFromTheArrayEngine() throws {
        let out = try TemporaryDirectory()
        // Slurm --array=2-5: task 5 is the last of 4, shard 3/4.
        let slurm = try kiln(export(out.path, "auto"),
                             environment: ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "2"])
        #expect(slurm.status == 0, "\(slurm.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.join(".kiln/shards/3-of-4/job.json")))
        let kubernetes = try kiln(export(out.path, "auto"), environment: ["JOB_COMPLETION_INDEX": "0", "KILN_SHARD_COUNT": "4"])
        #expect(kubernetes.status == 0, "\(kubernetes.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.join(".kiln/shards/0-of-4/job.json")))
        let none = try kiln(export(out.path, "auto"))
        #expect(none.status == 64 && none.stderr.contains("SLURM_ARRAY_TASK_ID"), "\(none.stderr)")
        let shards = shards(status(out.path))
        #expect(shards.map { $0[string: "state"] } == ["finished", "notStarted", "notStarted", "finished"])
    }

    @Test func resumeOfAShardedDirectoryNamesTheShards() throws {
        let out = try TemporaryDirectory()
        #expect(try kiln(export(out.path, "0/2")).status == 0)
        let r = try kiln(["resume", out.path])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--shard K/N") && r.stderr.contains("0/2"), "\(r.stderr)")
    }
}
