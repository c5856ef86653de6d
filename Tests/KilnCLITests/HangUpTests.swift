import Foundation
import KilnTestSupport
import Testing

/// SIGHUP (the terminal closed) stops a job as SIGTERM does: the images in
/// flight finish, a `stopping` and an `end` event come, exit 75, and `kiln resume`
/// completes it. A kiln started with SIGHUP ignored (`nohup`, `trap "" HUP`)
/// keeps it ignored: the job runs on to the end.
@Suite(.serialized) struct HangUpTests {
    private func fileEvents(_ child: ChildProcess) -> Int {
        child.stdoutSoFar.components(separatedBy: "\"event\":\"file\"").count - 1
    }

    @Test func sighupStopsResumablyWithAnEndEvent() throws {
        let out = try TemporaryDirectory()
        // The stall hook holds the job after 2 images, so the signal comes at a known point.
        let child = try startKiln(["export", LargeImages.directory, "--output", out.path, "--progress", "json",
                                   "--jobs", "1", "--stall-timeout", "600"],
                                  environment: ["KILN_TEST_STALL_AFTER": "2"])
        #expect(child.waitUntil { fileEvents(child) >= 2 })
        child.send(SIGHUP)
        let r = try child.wait(timeout: .seconds(60))
        #expect(r.signal == nil && r.status == 75, "killed by signal \(String(describing: r.signal)): \(r.stderr)")
        let events = Events(r.stdoutLines)
        // The reason by its name, for scripts (docs/cli.md), and in words.
        #expect((events.named("stopping").first ?? [:])[string: "reason"] == "hangUp", "\(r.stdout)")
        #expect((events.named("stopping").first ?? [:])[string: "message"].contains("terminal closed"), "\(r.stdout)")
        #expect(events.all.last?["event"] as? String == "end")
        #expect(events.all.last?["exitCode"] as? Int == 75)
        let resumed = try kiln(["resume", out.path, "--progress", "none"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(LargeImages.matchesReference(out.path) == [])
    }

    @Test func sighupIgnoredAtTheStartStaysIgnored() throws {
        let dir = try TemporaryDirectory()
        let out = dir.join("out"), release = dir.join("release")
        // As nohup does: the shell sets SIGHUP to SIG_IGN, and exec keeps it for kiln (same pid).
        let child = try ChildProcess("/bin/sh", ["-c", "trap '' HUP; exec \"$0\" \"$@\"", Paths.kiln, "export",
                                                 LargeImages.directory, "--output", out, "--progress", "json",
                                                 "--jobs", "1", "--stall-timeout", "600"],
                                     environment: ["KILN_TEST_STALL_AFTER": "2", "KILN_TEST_STALL_RELEASE": release,
                                                   "KILN_RUNTIME_DIR": dir.join("slots")])
        #expect(child.waitUntil { fileEvents(child) >= 2 })
        child.send(SIGHUP)
        // Still held by the stall, which honours stops: a SIGHUP that acted would end the job in this
        // time (a stop takes no new image); two images' worth is far longer than a stop takes.
        let stopped = child.waitUntil(timeout: .seconds(max(2, 2 * LargeImages.reference.secondsPerImage))) {
            child.stdoutSoFar.contains("\"event\":\"stopping\"")
        }
        #expect(!stopped, "SIGHUP stopped the job: \(child.stdoutSoFar)")
        _ = FileManager.default.createFile(atPath: release, contents: Data())
        let r = try child.wait(timeout: .seconds(300))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Events(r.stdoutLines).named("stopping").isEmpty)
        #expect(LargeImages.matchesReference(out) == [])
    }
}
