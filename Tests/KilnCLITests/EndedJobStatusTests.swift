import Foundation
import KilnTestSupport
import Testing

/// `kiln status --json` of an ended job says how it ended, as the `end` event of
/// `--progress json` does: `exitCode` and `conflicts`. (Issue 24: a finished job
/// with a failure had neither; a script could not tell success from failure.)
@Suite struct EndedJobStatusTests {
    /// `kiln status DIR --json` as an object.
    private func status(_ directory: String) throws -> [String: Any] {
        let r = try kiln(["status", directory, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        return (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    @Test func jobWithAFailureAndAConflictSaysExitCode1AndItsConflicts() throws {
        let dir = try TemporaryDirectory()
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        try fm.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("in/a.png"))
        try fm.copyItem(atPath: Paths.sampleData + "/gray8.png", toPath: dir.join("in/b.png"))
        var corrupt = try Data(contentsOf: URL(fileURLWithPath: Paths.sampleData + "/rgb8.png"))
        corrupt = corrupt.prefix(corrupt.count / 2)  // truncated: a PNG that fails to decode
        try corrupt.write(to: URL(fileURLWithPath: dir.join("in/c.png")))
        try fm.createDirectory(atPath: dir.join("out"), withIntermediateDirectories: true)
        try Data("not kiln's".utf8).write(to: URL(fileURLWithPath: dir.join("out/b.png")))  // a conflict

        let r = try kiln(["export", dir.join("in"), "--output", dir.join("out"), "--progress", "json"])
        #expect(r.status == 1, "\(r.stderr)")
        let end = Events(r.stdoutLines).named("end").first ?? [:]
        #expect(end["conflicts"] as? Int == 1 && end["failed"] as? Int == 1, "\(end)")

        let json = try status(dir.join("out"))
        #expect(json["state"] as? String == "finished", "\(json)")
        #expect(json["exitCode"] as? Int == 1, "\(json)")
        #expect(json["conflicts"] as? Int == 1 && json["failed"] as? Int == 2, "the status's failed counts the conflict: \(json)")
        let text = try kiln(["status", dir.join("out")])
        #expect(text.stdout.contains("2 failed (1 conflict)") && text.stdout.contains("exit code 1"), "\(text.stdout)")
    }

    @Test func cleanJobSaysExitCode0AndNoConflicts() throws {
        let dir = try TemporaryDirectory()
        let r = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", dir.join("out"), "--keep-journal",
                          "--progress", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try status(dir.join("out"))
        #expect(json["state"] as? String == "finished", "\(json)")
        #expect(json["exitCode"] as? Int == 0, "\(json)")
        #expect(json["conflicts"] as? Int == 0, "\(json)")
        let text = try kiln(["status", dir.join("out")])
        #expect(text.stdout.contains("exit code 0"), "\(text.stdout)")
    }

    /// A stopped job's fraction is the part of the work its run finished, which `kiln resume` continues from (every
    /// stage weighted by its cost), not the share of images done: a script polling status saw it go back.
    @Test func aStoppedJobShowsTheFractionResumeContinuesFrom() throws {
        let dir = try TemporaryDirectory()
        let r = try kiln(["export", Paths.sampleData, "--output", dir.join("out"), "--jobs", "1", "--stall-timeout", "1",
                          "--progress", "none"], environment: ["KILN_TEST_STALL_AFTER": "3"])
        #expect(r.status == 75, "\(r.stderr)")
        let published = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.join("out/.kiln/status.json"))))
            as? [String: Any] ?? [:]
        let fraction = try #require(published["finishedFraction"] as? Double)
        let json = try status(dir.join("out"))
        #expect(json["state"] as? String == "stopped", "\(json)")
        let total = Paths.pngs(in: Paths.sampleData).count
        #expect(json["completed"] as? Int == 3 && fraction != 3 / Double(total), "the two must differ to tell: \(fraction)")
        #expect(json["fraction"] as? Double == (fraction * 10_000).rounded() / 10_000, "\(json) against \(fraction)")
        let text = try kiln(["status", dir.join("out")])
        #expect(text.stdout.contains("3/\(total) done (\(Int(fraction * 100))%)"), "\(text.stdout)")
    }

    /// A job killed between two publications of its status (at most two a second; a batch of records can land
    /// between them) has more images recorded than its last publication counted: `kiln status` said "13/20 done
    /// (29%)" of 20 alike images, the count from the journal and the percentage from the stale publication. Each
    /// image recorded since counts as an average one of those that publication had left. Here the stopped job's
    /// status is put back to what a publication after its first image would have said.
    @Test func aJobKilledBetweenPublicationsCountsTheImagesRecordedSince() throws {
        let dir = try TemporaryDirectory()
        let r = try kiln(["export", Paths.sampleData, "--output", dir.join("out"), "--jobs", "1", "--stall-timeout", "1",
                          "--progress", "none"], environment: ["KILN_TEST_STALL_AFTER": "3"])
        #expect(r.status == 75, "\(r.stderr)")
        let path = dir.join("out/.kiln/status.json")
        var published = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any] ?? [:]
        published["completed"] = 1
        published["written"] = 1
        published["finishedFraction"] = 0.05
        try JSONSerialization.data(withJSONObject: published).write(to: URL(fileURLWithPath: path))
        let total = Paths.pngs(in: Paths.sampleData).count
        let json = try status(dir.join("out"))
        let expected = 0.05 + 2 * 0.95 / Double(total - 1)
        #expect(json["completed"] as? Int == 3, "\(json)")
        #expect(json["fraction"] as? Double == (expected * 10_000).rounded() / 10_000, "\(json) against \(expected)")
    }

    /// A running job's `kiln status --json` says where and when (host, started, updated: a live status from a stale
    /// one), its subtitle and its throughput, which counts the work of the images in flight: it said 0 until the
    /// first image finished, and left out host, updated, started, the rates and the subtitle.
    @Test func aRunningJobSaysWhereWhenAndHowFast() throws {
        let dir = try TemporaryDirectory()
        var rng = SeededGenerator(seed: 11)
        try Data(LargeImages.photo(width: 3000, height: 2000, using: &rng)).write(to: URL(fileURLWithPath: dir.join("big.png")))
        let out = dir.join("out")
        let child = try startKiln(["export", dir.join("big.png"), "-o", out, "--level", "9", "--device", "cpu", "--progress", "json"])
        // Well into its one image: the fraction moved, nothing finished.
        let moved = child.waitUntil(timeout: .seconds(600)) {
            Events(child.stdoutSoFar.split(separator: "\n").map(String.init)).named("progress")
                .contains { ($0["fraction"] as? Double ?? 0) > 0.2 }
        }
        #expect(moved)
        let json = try status(out)
        child.send(SIGTERM)
        _ = try child.wait()
        try #require(json["state"] as? String == "running" && json["completed"] as? Int == 0, "\(json)")
        #expect((json["pixelsPerSecond"] as? Int ?? 0) > 0 && json["imagesPerSecond"] as? Double == 0, "\(json)")
        #expect((json["host"] as? String)?.isEmpty == false, "\(json)")
        let started = try #require(json["started"] as? Double), updated = try #require(json["updated"] as? Double)
        #expect(updated >= started && abs(updated - Date().timeIntervalSince1970) < 60, "\(json)")
        #expect((json["subtitle"] as? String)?.contains("PNG level 9") == true, "\(json)")
        #expect(json["stalledOn"] is NSNull, "\(json)")
    }
}
