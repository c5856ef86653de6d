import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// SPEC §5: the fraction counts every stage that costs time (decode, render
/// and encode), never decreases within a run, and a resume continues from it;
/// the stall watchdog sees the same progress, so working is never expiring;
/// a job that stalls on the same image in two runs in a row leaves it out.
@Suite struct ProgressTruthTests {
    /// A photo-like image (``LargeImages/photo(width:height:phase:using:)``) of `width × height`.
    private static func photo(width: Int, height: Int, seed: UInt64) throws -> [UInt8] {
        var rng = SeededGenerator(seed: seed)
        return LargeImages.photo(width: width, height: height, using: &rng)
    }

    /// Images of very different sizes, large and small mixed, so that weights learned while
    /// reading them (as before) would have moved the fraction backwards.
    private static func mixedFolder(in dir: TemporaryDirectory) throws -> String {
        let folder = dir.join("in")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let sizes = [(160, 120), (1800, 1200), (200, 150), (240, 180), (1500, 1000), (120, 90), (1700, 1100),
                     (180, 120), (220, 160), (1600, 1200), (140, 100), (1400, 1000)]
        for (index, size) in sizes.enumerated() {
            let png = try photo(width: size.0, height: size.1, seed: UInt64(index + 1))
            try Data(png).write(to: URL(fileURLWithPath: folder + String(format: "/p%02d.png", index)))
        }
        return folder
    }

    /// The `fraction` of each `progress` event, in order.
    private func fractions(_ lines: [String]) -> [Double] {
        Events(lines).named("progress").compactMap { $0["fraction"] as? Double }
    }

    /// How far `fractions` ever fell (0 when they never did).
    private func largestFall(_ fractions: [Double]) -> Double {
        zip(fractions, fractions.dropFirst()).map { $0 - $1 }.max().map { max($0, 0) } ?? 0
    }

    @Test func theFractionNeverFallsAndAResumeContinuesFromIt() throws {
        let dir = try TemporaryDirectory()
        let input = try Self.mixedFolder(in: dir)
        let out = dir.join("out"), release = dir.join("release")
        let arguments = ["--level", "9", "--progress", "json", "--device", "cpu", "--jobs", "2"]
        // Held after 5 images (the stall hook), then interrupted: the run stops with work left.
        let child = try startKiln(["export", input, "--output", out] + arguments,
                                  environment: ["KILN_TEST_STALL_AFTER": "5", "KILN_TEST_STALL_RELEASE": release])
        let held = child.waitUntil(timeout: .seconds(600)) {
            Events(child.stdoutSoFar.split(separator: "\n").map(String.init)).files("written").count >= 5
        }
        #expect(held, "the first five images were never written")
        child.send(SIGINT)
        let first = try child.wait()
        #expect(first.status == 75, "\(first.stderr)")
        let before = fractions(first.stdoutLines)
        #expect(before.count >= 2)
        #expect(largestFall(before) == 0, "the fraction fell in the interrupted run: \(before)")
        let reached = try #require(before.last)
        #expect(reached > 0 && reached < 1)

        let resumed = try kiln(["resume", out, "--progress", "json"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let after = fractions(resumed.stdoutLines)
        #expect(after.count >= 1)
        #expect((after.first ?? 0) >= reached, "the resume started at \(after.first ?? 0), below \(reached)")
        #expect(largestFall(after) == 0, "the fraction fell in the resume: \(after)")
        // Every progress event carries the rate and the estimate the bar shows.
        for event in Events(resumed.stdoutLines).named("progress") {
            #expect(event["pixelsPerSecond"] is Int, "\(event)")
            #expect(event["etaSeconds"] is Int || event["etaSeconds"] is NSNull, "\(event)")
            if let eta = event["etaSeconds"] as? Int { #expect(eta >= 0) }
        }
        #expect(Paths.pngs(in: out).count == 12)
    }

    /// A resume continues from the work the stopped run finished, and `kiln status` says that fraction: the
    /// image in flight at the stop is redone, so the part of it done is not counted again. Before, `kiln status`
    /// said the fraction last shown (a giant image stopped at 73 % said 73 %, stop after stop the fraction climbed
    /// to 1 with images left to do), and a resume continued from it, or from 0 where no image had finished.
    @Test func aResumeContinuesFromTheWorkFinished() throws {
        let dir = try TemporaryDirectory()
        let folder = dir.join("in"), out = dir.join("out")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(try Self.photo(width: 200, height: 150, seed: 8)).write(to: URL(fileURLWithPath: folder + "/a.png"))
        try Data(try Self.photo(width: 3000, height: 2000, seed: 9)).write(to: URL(fileURLWithPath: folder + "/b.png"))
        let child = try startKiln(["export", folder, "--output", out, "--level", "9", "--progress", "json", "--device", "cpu",
                                   "--jobs", "1", "--grace", "0.1"])
        // Stopped well into the big image, the small one written.
        let moved = child.waitUntil(timeout: .seconds(600)) {
            let lines = child.stdoutSoFar.split(separator: "\n").map(String.init)
            return Events(lines).files("written").count == 1 && (fractions(lines).last ?? 0) > 0.2
        }
        #expect(moved, "the fraction never moved")
        child.send(SIGINT)
        let first = try child.wait()
        try #require(first.status == 75, "the big image was finished before the stop: \(first.stderr)")
        #expect(Events(first.stdoutLines).files("written").map { $0[string: "input"] } == [folder + "/a.png"])
        let shown = try #require(fractions(first.stdoutLines).last)
        let said = try #require(try kiln(["status", out, "--json"]).stdoutLines.first.flatMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }?["fraction"] as? Double)
        #expect(said > 0 && said < shown / 2, "status says \(said) of the \(shown) shown: the big image's work is lost")
        let resumed = try kiln(["resume", out, "--progress", "json"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let after = fractions(resumed.stdoutLines)
        #expect((after.first ?? 0) >= said - 0.0001 && (after.first ?? 1) < shown, "the resume started at \(after.first ?? 0)")
        #expect(largestFall(after) == 0, "\(after)")
    }

    /// Without stage-weighted progress the fraction sat still for the whole encode (zlib at level 9,
    /// one thread), and a watchdog shorter than the encode expired honest work, at every resume.
    @Test func aSlowEncodeKeepsTheWatchdogQuiet() throws {
        let dir = try TemporaryDirectory()
        let input = dir.join("big.png")
        try Data(try Self.photo(width: 3000, height: 2000, seed: 7)).write(to: URL(fileURLWithPath: input))
        let arguments = [input, "--level", "9", "--progress", "json", "--device", "cpu", "--jobs", "1"]
        // How long this machine takes, now: the stall timeout below is a quarter of it, far less than
        // the encode alone (most of a level-9 export), so only progress counted during the encode passes.
        let timed = try kiln(["export", "--output", dir.join("timed")] + arguments)
        #expect(timed.status == 0, "\(timed.stderr)")
        let timeout = max(timed.elapsed.seconds / 4, 0.5)
        let r = try kiln(["export", "--output", dir.join("out"), "--stall-timeout", String(format: "%.2f", timeout)]
                         + arguments)
        #expect(r.status == 0, "expired with --stall-timeout \(timeout) (the export takes \(timed.elapsed)): \(r.stderr)")
        let seen = fractions(r.stdoutLines)
        #expect(largestFall(seen) == 0, "\(seen)")
        // The encode moved the fraction: values between the render's end and 1 were shown.
        #expect(Set(seen.filter { $0 > 0 && $0 < 1 }).count >= 2, "\(seen)")
    }

    /// An image in hand at two stall expiries in a row (held by `KILN_TEST_PAUSE_DECODE`, so no
    /// progress can come) is named, then left out by the next resume, which finishes the rest.
    @Test func stallingTwiceOnOneImageLeavesItOut() throws {
        let dir = try TemporaryDirectory()
        let folder = dir.join("in"), out = dir.join("out"), release = dir.join("release")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, seed) in [("a", 1), ("b", 2)] as [(String, UInt64)] {
            try Data(try Self.photo(width: 64, height: 48, seed: seed)).write(to: URL(fileURLWithPath: "\(folder)/\(name).png"))
        }
        let held = ["KILN_TEST_PAUSE_DECODE": release]
        let stalling = ["--stall-timeout", "1", "--grace", "1", "--progress", "json"]
        let first = try kiln(["export", folder, "--output", out, "--jobs", "1", "--device", "cpu"] + stalling,
                             environment: held)
        #expect(first.status == 75, "\(first.stderr)")
        #expect(!first.stderr.contains("leaves it out"), "one stall is not yet a pattern: \(first.stderr)")
        let second = try kiln(["resume", out] + stalling, environment: held)
        #expect(second.status == 75, "\(second.stderr)")
        let named = Events(second.stdoutLines).named("warning").map { $0[string: "message"] }
        #expect(named.contains { $0.hasPrefix(folder + "/a.png: no progress for 1 s in this run and in the one before") },
                "\(named)")
        // No hook now: the image stalled on twice is left out, failed and named; the rest is written.
        let third = try kiln(["resume", out, "--progress", "json"])
        #expect(third.status == 1, "\(third.stderr)")
        let failed = Events(third.stdoutLines).files("failed")
        #expect(failed.map { $0[string: "input"] } == [folder + "/a.png"])
        #expect(failed.first?[string: "error"].contains("made no progress for the stall timeout") == true)
        #expect(Paths.pngs(in: out) == ["b.png"])
        // Asked again, it is tried again (and, unheld now, written).
        let fourth = try kiln(["resume", out, "--progress", "json"])
        #expect(fourth.status == 0, "\(fourth.stderr)")
        #expect(Paths.pngs(in: out) == ["a.png", "b.png"])
    }

    /// The `stopping` event's `inFlight` counts every image whose `file` event is still to come, those waiting for
    /// their batch's commit too: it counted only the workers' images, and more `file` events followed than it said.
    @Test func theStoppingEventCountsEveryFileEventToCome() throws {
        let dir = try TemporaryDirectory()
        let input = try Self.mixedFolder(in: dir)
        let release = dir.join("release")
        for attempt in 0..<3 {
            let child = try startKiln(["export", input, "--output", dir.join("out\(attempt)"), "--progress", "json", "--device", "cpu",
                                       "--jobs", "2", "--grace", "30"],
                                      environment: ["KILN_TEST_STALL_AFTER": "4", "KILN_TEST_STALL_RELEASE": release])
            #expect(child.waitUntil(timeout: .seconds(600)) {
                child.stdoutSoFar.contains("\"event\":\"file\"") || child.stdoutSoFar.contains("\"event\":\"end\"")
            })
            child.send(SIGINT)
            let r = try child.wait()
            let events = Events(r.stdoutLines).all
            let stop = try #require(events.firstIndex(where: { $0["event"] as? String == "stopping" }), "\(r.stdout)")
            let said = events[stop]["inFlight"] as? Int ?? -1
            let after = events[(stop + 1)...].filter { $0["event"] as? String == "file" }.count
            // Never fewer than come; one more only when an image's result went out the moment the stop was read.
            #expect(after <= said && said <= after + 1, "inFlight \(said), then \(after) file events")
        }
    }
}
