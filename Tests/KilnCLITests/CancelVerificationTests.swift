import Foundation
import KilnTestSupport
import Testing

/// `kiln cancel` signals only a process it verified to be the job: status.json
/// must name this host and a pid that holds the job's lock. A job on another
/// host is asked through the cancel mark it polls; a job that already ended is
/// said to have finished or stopped. A real running job is still cancelled.
@Suite(.serialized) struct CancelVerificationTests {
    private func fileEvents(_ child: ChildProcess) -> Int {
        child.stdoutSoFar.components(separatedBy: "\"event\":\"file\"").count - 1
    }

    /// This machine's name, as kiln compares it.
    private var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, buffer.count - 1)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A finished job's folder (journal kept), whose status.json then says what `changes` set.
    private func journal(_ out: String, status changes: [String: Any]) throws {
        let made = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", out, "--keep-journal",
                             "--progress", "none"])
        try #require(made.status == 0, "\(made.stderr)")
        let path = out + "/.kiln/status.json"
        var status = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
            as? [String: Any])
        for (key, value) in changes { status[key] = value }
        try JSONSerialization.data(withJSONObject: status).write(to: URL(fileURLWithPath: path))
    }

    /// A process that would die of SIGINT (sleep's default action); the caller stops it.
    private func bystander() throws -> ChildProcess {
        try ChildProcess("/bin/sleep", ["600"])
    }

    /// Whether `child` still runs: not exited and not reaped (a zombie still answers `kill(pid, 0)`).
    private func isAlive(_ child: ChildProcess) -> Bool {
        var status: Int32 = 0
        return waitpid(child.pid, &status, WNOHANG) == 0
    }

    @Test func aJobNamedOnAnotherHostIsAskedByTheMarkNeverSignalled() throws {
        let out = try TemporaryDirectory()
        let sleeper = try bystander()
        defer {
            sleeper.send(SIGKILL)
            _ = try? sleeper.wait(timeout: .seconds(10))
        }
        try journal(out.path, status: ["pid": Int(sleeper.pid), "host": "elsewhere.invalid", "state": "running"])
        let r = try kiln(["cancel", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("asked job \(sleeper.pid) on elsewhere.invalid to stop (it checks \(out.path)/.kiln/cancelled"),
                "\(r.stdout)")
        #expect(isAlive(sleeper), "a pid of another host was signalled here")
        #expect(FileManager.default.fileExists(atPath: out.join(".kiln/cancelled")))
    }

    @Test func aLivePidThatDoesNotHoldTheLockIsNotSignalled() throws {
        let out = try TemporaryDirectory()
        let sleeper = try bystander()
        defer {
            sleeper.send(SIGKILL)
            _ = try? sleeper.wait(timeout: .seconds(10))
        }
        try journal(out.path, status: ["pid": Int(sleeper.pid), "host": hostName, "state": "running"])
        // This test process holds the job's lock, so the lock alone would say "running".
        let lock = open(out.join(".kiln/lock"), O_RDWR | O_CLOEXEC)
        try #require(lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0, "the test took the job's lock")
        let r = try kiln(["cancel", out.path])
        #expect(r.status == 69, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stderr.contains("pid \(sleeper.pid)") && r.stderr.contains("does not hold its lock; nothing was signalled"),
                "\(r.stderr)")
        #expect(isAlive(sleeper))

        // Without any lock holder the job is not running: still nothing signalled.
        close(lock)
        let free = try kiln(["cancel", out.path])
        #expect(free.status == 1, "\(free.stderr)")
        #expect(free.stderr.contains("not running"), "\(free.stderr)")
        #expect(isAlive(sleeper))
    }

    @Test func cancelAfterTheJobEndedSaysFinishedOrStopped() throws {
        let out = try TemporaryDirectory()
        try journal(out.path, status: [:])
        let finished = try kiln(["cancel", out.path])
        #expect(finished.status == 1)
        #expect(finished.stderr.contains("the job in \(out.path) already finished; nothing to cancel"), "\(finished.stderr)")
        #expect(!finished.stdout.contains("asked job"))

        let stopped = try TemporaryDirectory()
        try journal(stopped.path, status: ["state": "stopped", "host": hostName])
        let r = try kiln(["cancel", stopped.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains("already stopped") && r.stderr.contains("`kiln resume \(stopped.path)` continues it"),
                "\(r.stderr)")
    }

    @Test func aRunningJobIsCancelledAndResumable() throws {
        let out = try TemporaryDirectory()
        let child = try startKiln(["export", LargeImages.directory, "--output", out.path, "--progress", "json",
                                   "--jobs", "1", "--stall-timeout", "600"],
                                  environment: ["KILN_TEST_STALL_AFTER": "2"])
        #expect(child.waitUntil { fileEvents(child) >= 2 })
        let cancel = try kiln(["cancel", out.path])
        #expect(cancel.status == 0, "\(cancel.stderr)")
        #expect(cancel.stdout.contains("asked job \(child.pid) to stop"), "\(cancel.stdout)")
        let r = try child.wait(timeout: .seconds(60))
        #expect(r.status == 75, "\(r.stderr)")
        #expect(try kiln(["resume", out.path, "--progress", "none"]).status == 0)
        #expect(LargeImages.matchesReference(out.path) == [])
    }

    /// A job suspended (Ctrl-Z) is continued by `kiln cancel`, so that it takes the stop: before, the cancel said it
    /// had asked it to stop, exit 0, and the job stood still, suspended, until someone continued it.
    @Test func aCancelContinuesASuspendedJobSoThatItStops() throws {
        let out = try TemporaryDirectory()
        let release = out.join("release")
        let child = try startKiln(["export", Paths.sampleData, "--output", out.join("out"), "--progress", "json", "--jobs", "1",
                                   "--grace", "0"], environment: ["KILN_TEST_PAUSE_DECODE": release])
        #expect(child.waitUntil { FileManager.default.fileExists(atPath: release + ".paused") })
        child.send(SIGTSTP)
        #expect(child.waitUntil { (try? kiln(["status", out.join("out")]))?.stdout.contains("suspended") == true })
        let cancel = try kiln(["cancel", out.join("out")])
        #expect(cancel.status == 0 && cancel.stdout.contains("and continued it (it was suspended)"), "\(cancel.stdout)\(cancel.stderr)")
        let r = try child.wait(timeout: .seconds(60))
        #expect(r.status == 75, "\(r.stderr)")
        #expect(Events(r.stdoutLines).named("stopping").first?[string: "reason"] == "userCancelled", "\(r.stdout)")
    }

    /// A second `kiln cancel` while the job stops (its images in flight finishing within --grace) asks nothing more: it
    /// sent a second SIGINT, a second Ctrl-C, and the job exited at once, the image in flight abandoned.
    @Test func aSecondCancelWhileTheJobStopsLeavesItsGrace() throws {
        let out = try TemporaryDirectory()
        // Each image's blur takes seconds: one is in flight when the cancels come.
        let child = try startKiln(["export", LargeImages.directory, "--output", out.path, "--progress", "json",
                                   "--jobs", "1", "--blur", "150", "--grace", "600", "--device", "cpu"])
        #expect(child.waitUntil { child.stdoutSoFar.contains("\"event\":\"start\"") })
        let first = try kiln(["cancel", out.path])
        #expect(first.status == 0 && first.stdout.contains("asked job \(child.pid) to stop"), "\(first.stdout)\(first.stderr)")
        #expect(child.waitUntil { child.stdoutSoFar.contains("\"event\":\"stopping\"") })
        let second = try kiln(["cancel", out.path])
        #expect(second.status == 0 && second.stdout.contains("is already stopping"), "\(second.stdout)\(second.stderr)")
        let r = try child.wait(timeout: .seconds(600))
        #expect(r.status == 75, "\(r.stderr)")
        let inFlight = Events(r.stdoutLines).named("stopping").first?["inFlight"] as? Int ?? 0
        #expect(inFlight == 1 && Events(r.stdoutLines).files("written").count >= 1, "the image in flight finished: \(r.stdout)")
    }

    /// A real job cancelled "from another host" (a UTS namespace with another host name) stops by the mark,
    /// exits 75, and `kiln resume` lifts the mark and completes it.
    @Test func aRunningJobCancelledFromAnotherHostStopsByTheMark() throws {
        let unshare = "/usr/bin/unshare"
        try #require(geteuid() == 0 && FileManager.default.isExecutableFile(atPath: unshare),
                     "the test needs root and unshare (util-linux) to give cancel another host name")
        let out = try TemporaryDirectory()
        let child = try startKiln(["export", LargeImages.directory, "--output", out.path, "--progress", "json",
                                   "--jobs", "1", "--stall-timeout", "600"],
                                  environment: ["KILN_TEST_STALL_AFTER": "2"])
        #expect(child.waitUntil { fileEvents(child) >= 2 })
        let cancel = try ChildProcess(unshare, ["-u", "sh", "-c", "hostname elsewhere.invalid && exec \"$0\" cancel \"$1\"",
                                                Paths.kiln, out.path]).wait(timeout: .seconds(60))
        #expect(cancel.status == 0, "\(cancel.stderr)")
        #expect(cancel.stdout.contains("asked job \(child.pid) on \(hostName) to stop"), "\(cancel.stdout)")
        let r = try child.wait(timeout: .seconds(60))
        #expect(r.status == 75, "\(r.stderr)")
        #expect(Events(r.stdoutLines).all.last?["exitCode"] as? Int == 75)
        #expect(try kiln(["resume", out.path, "--progress", "none"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: out.join(".kiln/cancelled")), "resume lifted the mark")
        #expect(LargeImages.matchesReference(out.path) == [])
    }
}
