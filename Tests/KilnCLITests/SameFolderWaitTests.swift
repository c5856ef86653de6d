import Foundation
import KilnTestSupport
import Testing

/// A second job on the same output folder, with `--strategy queue` given, waits for the first's lock.
/// Before: when the first ended without failures (and removed its journal), the waiter failed with
/// "cannot open …/.kiln/lock" and exit 69, exporting nothing; and SIGTERM or Ctrl-C killed the waiter
/// at once (exit 143, no `end`), as no handler was installed yet.
@Suite struct SameFolderWaitTests {
    /// A job on `out` that holds its lock until `release` exists.
    private func holder(_ out: String, release: String) throws -> ChildProcess {
        let child = try startKiln(["export", Paths.sampleData, "-o", out, "--jobs", "1", "--stall-timeout", "600",
                                   "--progress", "json"],
                                  environment: ["KILN_TEST_STALL_AFTER": "1", "KILN_TEST_STALL_RELEASE": release])
        #expect(child.waitUntil { child.stdoutSoFar.contains("\"event\":\"file\"") })
        return child
    }

    /// A second process on the same folder, once it says it waits. (Each test process has its own
    /// machine slots: it waits for the folder's lock alone.)
    private func waiter(_ arguments: [String]) throws -> ChildProcess {
        let child = try startKiln(arguments + ["--strategy", "queue", "--progress", "json"])
        #expect(child.waitUntil { child.stdoutSoFar.contains("waiting for it (--strategy queue)") }, "\(child.stdoutSoFar)")
        return child
    }

    @Test func aWaiterStopsCleanlyWhenAskedAndAResumeEndsWithTheJob() throws {
        let dir = try TemporaryDirectory()
        let out = dir.join("out"), release = dir.join("release")
        let first = try holder(out, release: release)

        // Stopped while it waits: its stream says why and ends, exit 75.
        let stopped = try waiter(["export", Paths.sampleData, "-o", out])
        stopped.send(SIGTERM)
        let r = try stopped.wait(timeout: .seconds(60))
        #expect(r.status == 75, "\(r.stdout)\n\(r.stderr)")
        #expect(Events(r.stdoutLines).all.compactMap { $0["event"] as? String } == ["warning", "stopping", "end"],
                "\(r.stdout)")
        #expect(Events(r.stdoutLines).named("stopping").first?["reason"] as? String == "systemTermination")

        // A resume waiting when the job finishes cleanly has nothing left to do.
        let resume = try waiter(["resume", out])
        #expect(FileManager.default.createFile(atPath: release, contents: Data()))
        #expect(try first.wait(timeout: .seconds(120)).status == 0)
        let resumed = try resume.wait(timeout: .seconds(120))
        #expect(resumed.status == 0, "\(resumed.stdout)\n\(resumed.stderr)")
        #expect(resumed.stdout.contains("finished while this resume waited for it: nothing is left to do"),
                "\(resumed.stdout)")
    }

    /// An export that waited for a job which then stopped (its journal kept) finds that job's outputs, made since
    /// the waiter opened the folder, as its own work: before, it took their paths as free (the folder was empty
    /// when it looked), made each image again, and failed it: "the output appeared while the job ran", exit 1.
    @Test func anExportThatWaitedFindsTheOutputsMadeWhileItWaited() throws {
        let dir = try TemporaryDirectory()
        let out = dir.join("out"), decode = dir.join("decode"), release = dir.join("release")
        // Held at its first decode (the folder holds only .kiln), then after its first image.
        let first = try startKiln(["export", Paths.sampleData, "-o", out, "--jobs", "1", "--stall-timeout", "600",
                                   "--progress", "json"],
                                  environment: ["KILN_TEST_PAUSE_DECODE": decode, "KILN_TEST_STALL_AFTER": "1",
                                                "KILN_TEST_STALL_RELEASE": release])
        #expect(first.waitUntil { FileManager.default.fileExists(atPath: decode + ".paused") })
        let second = try waiter(["export", Paths.sampleData, "-o", out])
        #expect(FileManager.default.createFile(atPath: decode, contents: Data()))
        #expect(first.waitUntil { first.stdoutSoFar.contains("\"status\":\"written\"") }, "\(first.stdoutSoFar)")
        first.send(SIGTERM)
        #expect(try first.wait(timeout: .seconds(120)).status == 75)
        let r = try second.wait(timeout: .seconds(300))
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        let events = Events(r.stdoutLines)
        #expect(events.files("failed").isEmpty, "\(r.stdout)")
        #expect(events.files("skipped").count == 1, "the first job's image: \(r.stdout)")
        #expect(events.files("written").count == Paths.pngs(in: Paths.sampleData).count - 1, "\(r.stdout)")
    }

    /// Two waiters: the first to see the folder gone makes a new one; the other, whose held folder is the
    /// removed one, begins again too (it failed with "cannot open …/lock", exit 69, when the path it checked
    /// had been made again by the first).
    @Test func exportsWaitingWhenTheJobFinishesRunInTheFolderItLeft() throws {
        let dir = try TemporaryDirectory()
        let out = dir.join("out"), release = dir.join("release")
        let first = try holder(out, release: release)
        let exports = try (0..<2).map { _ in try waiter(["export", Paths.sampleData, "-o", out]) }
        #expect(FileManager.default.createFile(atPath: release, contents: Data()))
        #expect(try first.wait(timeout: .seconds(120)).status == 0)
        for export in exports {
            let r = try export.wait(timeout: .seconds(120))
            #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
            // The same work: every output the first job made is found as this one's.
            #expect(Events(r.stdoutLines).files("skipped").count == Paths.pngs(in: Paths.sampleData).count, "\(r.stdout)")
        }
    }
}
