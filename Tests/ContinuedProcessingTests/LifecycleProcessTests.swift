import Foundation
import Testing

/// Starts the LifecycleProbe program and sends it real signals.
@Suite("ProcessLifecycle in a real process")
struct LifecycleProcessTests {
    @Test func sigtermRunsTheExpirationPathAndExitsWithinTheGrace() async throws {
        let probe = try ProbeProcess(["--grace-ms", "3000", "--cleanup-ms", "300"])
        #expect(await probe.waitForLine { $0 == "progress 2" } != nil)
        let sent = ContinuousClock.now
        probe.send(SIGTERM)
        let status = await probe.waitForExit()
        let waited = ContinuousClock.now - sent
        // 75 means the task reported completion; a grace that ran out would exit 1.
        #expect(status == 75, "\(probe.lines.suffix(5))")
        #expect(waited < .seconds(5), "exited after \(waited)")
        #expect(probe.lines.contains("expired systemTermination"))
        #expect(probe.lines.contains { $0.hasPrefix("state terminating") })
        #expect(probe.lines.last == "exit 75")
    }

    @Test func secondSIGINTStopsAtOnce() async throws {
        // The graceful path would take 20 s of cleanup; the second Ctrl-C must not wait for it.
        let probe = try ProbeProcess(["--grace-ms", "3000", "--cleanup-ms", "20000"])
        #expect(await probe.waitForLine { $0 == "progress 2" } != nil)
        probe.send(SIGINT)
        #expect(await probe.waitForLine { $0 == "expired userCancelled" } != nil)
        let sent = ContinuousClock.now
        probe.send(SIGINT)
        let status = await probe.waitForExit()
        let waited = ContinuousClock.now - sent
        #expect(status == 130, "\(probe.lines.suffix(5))")
        #expect(waited < .seconds(5), "exited after \(waited)")
        #expect(probe.lines.contains("stop now"))
        #expect(!probe.lines.contains("exit 75"))
    }

    /// A signal the moment `start()` returns is handled: libdispatch installs its handlers a quarter of a
    /// millisecond later, and the signals were `SIG_IGN` meanwhile, so such a Ctrl-C was lost and the work ran on.
    @Test func aSIGINTTheMomentStartReturnsIsHandled() async throws {
        let probe = try ProbeProcess(["--grace-ms", "3000", "--cleanup-ms", "100", "--steps", "60", "--raise-at-start", "\(SIGINT)"])
        #expect(await probe.waitForExit() == 75, "\(probe.lines.suffix(5))")
        #expect(probe.lines.contains("expired userCancelled"), "\(probe.lines.suffix(5))")
    }

    @Test func firstSIGINTAloneTakesTheGracefulPath() async throws {
        let probe = try ProbeProcess(["--grace-ms", "3000", "--cleanup-ms", "200"])
        #expect(await probe.waitForLine { $0 == "progress 2" } != nil)
        probe.send(SIGINT)
        #expect(await probe.waitForExit() == 75, "\(probe.lines.suffix(5))")
        #expect(probe.lines.contains("expired userCancelled"))
        #expect(!probe.lines.contains("stop now"))
    }

    @Test func sigtstpThenSigcontContinuesWithoutLosingProgress() async throws {
        let probe = try ProbeProcess(["--step-ms", "30"])
        #expect(await probe.waitForLine { $0 == "progress 3" } != nil)
        probe.send(SIGTSTP)
        let suspended = try #require(await probe.waitForLine { $0.hasPrefix("suspended ") })
        let before = try #require(Int(suspended.dropFirst("suspended ".count)))
        #expect(await probe.waitUntilStopped())
        let linesWhileStopped = probe.lines.count
        try await Task.sleep(for: .milliseconds(300))
        #expect(probe.isStopped)
        #expect(probe.lines.count == linesWhileStopped, "the probe wrote while stopped")
        probe.send(SIGCONT)
        #expect(await probe.waitForLine { $0 == "resumed" } != nil)
        #expect(await probe.waitForLine { $0 == "progress \(before + 3)" } != nil)
        let resumedAt = try #require(probe.lines.firstIndex(of: "resumed"))
        let after = probe.lines[resumedAt...].compactMap { $0.hasPrefix("progress ") ? Int($0.dropFirst(9)) : nil }
        #expect((after.first ?? -1) >= before)
        let values = probe.progressValues
        #expect(values == Array(1...(values.last ?? 0)), "progress went back or skipped")
        probe.send(SIGTERM)
        #expect(await probe.waitForExit() == 75)
    }

    @Test func backgroundLowersThePriorityAndForegroundRaisesItWhereAllowed() async throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("probe-bg-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: marker) }
        let probe = try ProbeProcess(["--background-file", marker.path, "--check-ms", "50"])
        let ready = try #require(await probe.waitForLine { $0.hasPrefix("ready ") })
        let baseNice = try #require(Int32(ready.split(separator: " ").last ?? ""))
        #expect(await probe.waitForLine { $0 == "started" } != nil)
        #expect(FileManager.default.createFile(atPath: marker.path, contents: nil))
        let background = try #require(await probe.waitForLine { $0.hasPrefix("state background") })
        #expect(background == "state background nice \(min(baseNice + 10, 19))")
        try FileManager.default.removeItem(at: marker)
        let active = try #require(await probe.waitForLine { $0.hasPrefix("state active") })
        // Raising the priority back needs privilege; without it the probe says so and stays lower.
        let denied = probe.lines.contains { $0.hasPrefix("log could not raise the priority back") }
        #expect(active == "state active nice \(denied ? min(baseNice + 10, 19) : baseNice)")
        probe.send(SIGTERM)
        #expect(await probe.waitForExit() == 75)
    }
}
