import Foundation
import KilnTestSupport
import Testing

/// A job queued behind another names the one it waits for — its pid, output
/// folder and title — in its `queued` event, on its text line and in
/// `kiln status`; before, it said only "waiting for another kiln job to finish".
@Suite struct QueuedJobTests {
    @Test func aQueuedJobNamesTheJobItWaitsFor() throws {
        let slots = try TemporaryDirectory()
        let env = ["KILN_RUNTIME_DIR": slots.path]
        let first = try TemporaryDirectory(), second = try TemporaryDirectory(), third = try TemporaryDirectory()
        let holder = try startKiln(["export", LargeImages.directory, "--output", first.path, "--progress", "json",
                                    "--jobs", "1", "--stall-timeout", "600", "--device", "cpu", "--title", "Holiday photos"],
                                   environment: env.merging(["KILN_TEST_STALL_AFTER": "1"]) { $1 })
        #expect(holder.waitUntil { holder.stdoutSoFar.contains("\"event\":\"file\"") })

        let waiter = try startKiln(["export", Paths.sampleData, "--output", second.path, "--progress", "json",
                                    "--device", "cpu"], environment: env)
        #expect(waiter.waitUntil { waiter.stdoutSoFar.contains("\"event\":\"queued\"") })
        let queued = Events(waiter.stdoutSoFar.split(separator: "\n").map(String.init)).named("queued")
        #expect(queued.first?["waitingForPid"] as? Int == Int(holder.pid), "\(queued)")
        #expect((queued.first?["waitingForOutput"] as? String).map { URL(fileURLWithPath: $0).standardized.path }
                == URL(fileURLWithPath: first.path).standardized.path, "\(queued)")
        #expect(queued.first?["waitingForTitle"] as? String == "Holiday photos", "\(queued)")
        #expect(queued.first?["waitingForJobs"] as? Int == 1)

        // kiln status of the queued job says it too, in JSON and in words.
        #expect(waiter.waitUntil { (try? kiln(["status", second.path]).stdout.contains("waiting for")) == true })
        let status = try kiln(["status", second.path, "--json"])
        let line = Events(status.stdoutLines).named("status").first
        #expect(line?["state"] as? String == "queued", "\(status.stdout)")
        #expect(line?["waitingForPid"] as? Int == Int(holder.pid), "\(status.stdout)")
        #expect(line?["waitingForTitle"] as? String == "Holiday photos", "\(status.stdout)")
        let text = try kiln(["status", second.path])
        #expect(text.stdout.contains("waiting for kiln pid \(holder.pid) (Holiday photos"), "\(text.stdout)")

        // The text reporter's line (no terminal: a plain line on standard error).
        let plain = try startKiln(["export", Paths.sampleData, "--output", third.path, "--progress", "bar",
                                   "--device", "cpu"], environment: env)
        #expect(plain.waitUntil { plain.stderrSoFar.contains("queued at position") })
        #expect(plain.stderrSoFar.contains("waiting for kiln pid \(holder.pid) (Holiday photos"), "\(plain.stderrSoFar)")

        // Stopped while it waits: its stream says why, as a running job's does, before its end.
        let fourth = try TemporaryDirectory()
        let stopped = try startKiln(["export", Paths.sampleData, "--output", fourth.path, "--progress", "json",
                                     "--device", "cpu"], environment: env)
        #expect(stopped.waitUntil { stopped.stdoutSoFar.contains("\"event\":\"queued\"") })
        stopped.send(SIGTERM)
        let result = try stopped.wait(timeout: .seconds(60))
        #expect(result.status == 75, "\(result.stderr)")
        let events = Events(result.stdoutLines).all.compactMap { $0["event"] as? String }
        #expect(events.suffix(2) == ["stopping", "end"], "\(events)")
        let stopping = Events(result.stdoutLines).named("stopping").first
        #expect(stopping?["reason"] as? String == "systemTermination", "\(result.stdout)")
        #expect(stopping?["inFlight"] as? Int == 0, "\(result.stdout)")

        #expect(try kiln(["cancel", first.path]).status == 0)
        #expect(try holder.wait(timeout: .seconds(60)).status == 75)
        let waited = try waiter.wait(timeout: .seconds(120))
        #expect(waited.status == 0)
        // Each `queued` names the job it waits for; none is sent for the moment the holder lets go.
        let named = Events(waited.stdoutLines).named("queued").map { $0["waitingForJobs"] as? Int ?? 0 }
        #expect(!named.isEmpty && named.allSatisfy { $0 >= 1 }, "\(waited.stdout)")
        #expect(try plain.wait(timeout: .seconds(120)).status == 0)
    }

    /// A `KILN_CPU_SLOTS` that is no whole number from 1 is said (it was read as 1 without a word).
    @Test(arguments: ["0", "-1", "abc", "2.5", "99999999999999999999", "1000000000", ""])
    func aBadSlotCountIsSaid(_ value: String) throws {
        let dir = try TemporaryDirectory()
        let r = try kiln(["export", Paths.sampleData + "/rgb8.png", "-o", dir.join("out"), "--device", "cpu", "--progress", "json"],
                         environment: ["KILN_CPU_SLOTS": value])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = Events(r.stdoutLines).named("warning").compactMap { $0["message"] as? String }
        let what = value.count >= 10 ? "is more than the 1024 slots kiln keeps" : "is not a whole number from 1"
        // Set empty, it is as unset: no word.
        #expect(warnings == (value.isEmpty ? [] : ["KILN_CPU_SLOTS=\(value) \(what): one CPU job runs at a time on this machine, the default"]),
                "\(warnings)")
    }
}
