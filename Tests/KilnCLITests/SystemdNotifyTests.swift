import Foundation
import KilnTestSupport
import Testing

/// kiln under systemd's notify protocol (SPEC §10), with a `NOTIFY_SOCKET` the
/// test listens on, a path or an abstract name: `READY=1` once planned, `STATUS=`
/// lines at most once a second, `WATCHDOG=1` only while progress moves, and on
/// SIGTERM `STOPPING=1` with `EXTEND_TIMEOUT_USEC` covering the grace; exit 75.
@Suite(.serialized) struct SystemdNotifyTests {
    private func fileEvents(_ child: ChildProcess) -> Int {
        child.stdoutSoFar.components(separatedBy: "\"event\":\"file\"").count - 1
    }

    @Test(arguments: ["path", "abstract"])
    func readyStatusWatchdogAndStopping(_ kind: String) throws {
        let dir = try TemporaryDirectory()
        let listener = try NotifyListener(kind == "path" ? dir.join("notify") : "@kiln-test-\(UUID().uuidString)")
        let grace = 3
        // The stall hook holds the job after 2 images: progress stops, the watchdog pings must stop with it.
        let child = try startKiln(["export", LargeImages.directory, "--output", dir.join("out"), "--progress", "json",
                                   "--jobs", "1", "--stall-timeout", "600", "--grace", "\(grace)", "--notify", "none"],
                                  environment: ["NOTIFY_SOCKET": listener.name, "WATCHDOG_USEC": "1000000",
                                                "KILN_TEST_STALL_AFTER": "2"])
        #expect(listener.listen(to: child, for: .seconds(120)) { fileEvents(child) >= 2 })
        #expect(listener.lines.first == "READY=1")
        #expect(listener.lines.contains("WATCHDOG=1"), "no ping while images progressed: \(listener.lines)")
        // Held: STATUS= goes on, WATCHDOG=1 does not (after two ping intervals for the last image's own ping).
        listener.listen(to: child, for: .seconds(2))
        let held = listener.messages.count
        listener.listen(to: child, for: .seconds(3))
        let whileHeld = listener.messages[held...].map(\.text)
        #expect(!whileHeld.contains { $0.contains("WATCHDOG=1") }, "pinged while stalled: \(whileHeld)")
        #expect(whileHeld.contains { $0.contains("STATUS=") })

        child.send(SIGTERM)
        listener.listen(to: child, for: .seconds(60))
        let r = try child.wait()
        #expect(r.status == 75, "\(r.stderr)")
        let lines = listener.lines
        #expect(lines.filter { $0 == "READY=1" }.count == 1)
        #expect(lines.contains("STOPPING=1"), "\(lines)")
        // The stop's own STATUS= has no ETA: the work left is no longer what the job will do.
        let stop = listener.messages.first { $0.text.contains("STOPPING=1") }?.text ?? ""
        #expect(stop.contains("STATUS=") && !stop.contains("ETA"), "\(stop)")
        let extend = lines.first { $0.hasPrefix("EXTEND_TIMEOUT_USEC=") }.flatMap { Int($0.dropFirst(20)) } ?? 0
        #expect(extend >= grace * 1_000_000, "EXTEND_TIMEOUT_USEC=\(extend) does not cover the grace")
        let statusLines = lines.filter { $0.hasPrefix("STATUS=") }
        #expect(statusLines.contains { $0.contains("%") && $0.contains("/\(LargeImages.count)") }, "\(statusLines)")
        // At most one STATUS= a second, but for the stop and the end, which say so at once. Counted over the
        // run, not timed between reads: a loaded machine may read two datagrams late and together.
        let statusCount = listener.messages.filter { $0.text.contains("STATUS=") }.count
        #expect(statusCount <= Int(r.elapsed.seconds.rounded(.up)) + 3, "\(statusCount) in \(r.elapsed)")
        print("systemd (\(kind)): \(statusLines.count) STATUS= lines in \(String(format: "%.1f", r.elapsed.seconds)) s, \(lines.filter { $0 == "WATCHDOG=1" }.count) "
              + "WATCHDOG=1, \(lines.first { $0.hasPrefix("EXTEND_TIMEOUT_USEC=") } ?? "no EXTEND_TIMEOUT_USEC"), "
              + "last: \(statusLines.last ?? "")")
    }
}
