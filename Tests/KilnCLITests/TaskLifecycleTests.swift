import Foundation
import KilnTestSupport
import Testing

/// `kiln export` as a continued-processing task (SPEC §2 Lifecycle, §5 job
/// state): stopping by signal, by `kill -9`, by the watchdog; resuming to the
/// exact outputs of an uninterrupted run; status and cancel from another process.
@Suite(.serialized) struct TaskLifecycleTests {
    private func fileEvents(_ child: ChildProcess) -> Int {
        child.stdoutSoFar.components(separatedBy: "\"event\":\"file\"").count - 1
    }

    /// `kiln status DIR --json` as an object (empty when it printed none).
    private func status(_ directory: String) -> [String: Any] {
        let r = try? kiln(["status", directory, "--json"])
        return (try? JSONSerialization.jsonObject(with: Data((r?.stdout ?? "").utf8)) as? [String: Any]) ?? [:]
    }

    /// Any name in the output directory other than finished `.png` outputs and the journal folder.
    private func strayNames(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0 != ".kiln" && !$0.hasSuffix(".png") }
    }

    /// Before: the images a stop abandoned after their render were counted in "N images were smaller
    /// than the resize box" (5 counted, 3 written, in an exploratory run at level 9).
    @Test func aStopCountsOnlyTheImagesItWroteAsKeptSmall() throws {
        let out = try TemporaryDirectory()
        // Level 9 compresses each image whole after its render: images are abandoned with their pixels made.
        let child = try startKiln(["export", LargeImages.directory, "--output", out.path, "--progress", "json", "--jobs", "2",
                                   "--resize", "4000x", "--level", "9", "--grace", "0"])
        #expect(child.waitUntil { fileEvents(child) >= 2 })
        child.send(SIGINT)
        let r = try child.wait()
        #expect(r.status == 75, "\(r.stderr)")
        let events = Events(r.stdoutLines)
        let written = events.files("written").count
        let note = events.named("warning").compactMap { $0["message"] as? String }.first { $0.contains("resize box") }
        #expect(note?.hasPrefix(written == 1 ? "1 image was" : "\(written) images were") == true,
                "\(written) written: \(note ?? "no note")")
    }

    @Test func sigintStopsResumablyAndResumeMatchesAnUninterruptedRun() throws {
        let reference = LargeImages.reference
        let out = try TemporaryDirectory()
        let child = try startKiln(["export", LargeImages.directory, "--output", out.path, "--progress", "json", "--jobs", "2"])
        #expect(child.waitUntil { fileEvents(child) >= 3 })
        var stray: [String] = []
        child.send(SIGINT)
        let interrupted = ContinuousClock.now
        // Watch the directory while the job stops: only complete outputs may ever appear.
        child.waitUntil(timeout: .seconds(30)) {
            stray += strayNames(out.path)
            return false
        }
        let r = try child.wait()
        let stopTime = (ContinuousClock.now - interrupted).seconds
        #expect(r.status == 75, "\(r.stderr)")
        #expect(stopTime < 2 + 2 * reference.secondsPerImage + 1, "stopped after \(stopTime) s")
        #expect(stray.isEmpty, "partial or temporary files were visible: \(Set(stray))")
        let events = Events(r.stdoutLines)
        #expect(events.named("stopping").count == 1)
        #expect(events.all.last?["exitCode"] as? Int == 75)
        let written = LargeImages.outputs(in: out.path).count
        #expect(written > 0 && written < LargeImages.count, "\(written) written before the stop")
        #expect(try pngcheckFailures(LargeImages.outputs(in: out.path).map { out.join($0) }) == [])

        let resumed = try kiln(["resume", out.path, "--progress", "json"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(Events(resumed.stdoutLines).files("written").count == LargeImages.count - written,
                "resume did only what was left")
        #expect(LargeImages.matchesReference(out.path) == [])
    }

    @Test(arguments: [1, 6, 14])
    func killNineThenResumeNeverRewritesFinishedOutputs(_ after: Int) throws {
        let out = try TemporaryDirectory()
        let child = try startKiln(["export", LargeImages.directory, "--output", out.path, "--progress", "json", "--jobs", "2"])
        #expect(child.waitUntil { fileEvents(child) >= after })
        child.send(SIGKILL)
        let r = try child.wait()
        #expect(r.signal == SIGKILL)
        let present = LargeImages.outputs(in: out.path)
        #expect(strayNames(out.path).isEmpty)
        #expect(try pngcheckFailures(present.map { out.join($0) }) == [], "every file present is a complete PNG")

        // Outputs the journal recorded must survive the resume untouched (same inode, same mtime).
        let journal = (try? String(contentsOfFile: out.join(".kiln/finished.ndjson"), encoding: .utf8)) ?? ""
        let recorded = present.filter { journal.contains("\"output\":\"\($0)\"") }
        #expect(recorded.count >= after - 2, "journal records \(recorded.count) of \(present.count) present")
        func identity(_ name: String) -> [AnyHashable] {
            let a = (try? FileManager.default.attributesOfItem(atPath: out.join(name))) ?? [:]
            return [a[.systemFileNumber] as? Int ?? -1, a[.modificationDate] as? Date ?? Date.distantPast]
        }
        let before = recorded.map(identity)

        let resumed = try kiln(["resume", out.path, "--progress", "json"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(recorded.map(identity) == before, "resume rewrote an output the journal recorded as finished")
        #expect(LargeImages.matchesReference(out.path) == [])
    }

    @Test func sigtermExpiresWithinTheGracePeriod() throws {
        let out = try TemporaryDirectory()
        let child = try startKiln(["export", LargeImages.directory, "--output", out.path, "--progress", "json",
                                   "--jobs", "2", "--grace", "3"])
        #expect(child.waitUntil { fileEvents(child) >= 2 })
        child.send(SIGTERM)
        let signalled = ContinuousClock.now
        let r = try child.wait()
        #expect(r.status == 75, "\(r.stderr)")
        #expect((ContinuousClock.now - signalled).seconds < 3 + 1)
        #expect((Events(r.stdoutLines).named("stopping").first ?? [:])[string: "reason"] == "systemTermination", "\(r.stdout)")
        #expect(try kiln(["resume", out.path, "--progress", "none"]).status == 0)
        #expect(LargeImages.matchesReference(out.path) == [])
    }

    /// The first SIGTERM or Ctrl-C takes no new image and lets the images in flight
    /// finish (at level 9, where each takes a while) within a generous grace.
    @Test(arguments: [SIGTERM, SIGINT])
    func aStopFinishesTheImagesInFlight(_ signal: Int32) throws {
        let out = try TemporaryDirectory()
        let child = try startKiln(["export", LargeImages.directory, "--output", out.path, "--progress", "json",
                                   "--jobs", "2", "--level", "9", "--grace", "60"])
        #expect(child.waitUntil { fileEvents(child) >= 2 })
        child.send(signal)
        let r = try child.wait(timeout: .seconds(120))
        #expect(r.status == 75, "\(r.stderr)")
        let events = Events(r.stdoutLines)
        let stop = events.all.firstIndex { $0["event"] as? String == "stopping" } ?? events.all.endIndex
        let inFlight = stop < events.all.endIndex ? events.all[stop]["inFlight"] as? Int ?? -1 : -1
        #expect(inFlight >= 1, "images in flight at the signal: \(inFlight)")
        let finishedAfter = events.all[stop...].filter { $0["event"] as? String == "file" }
        #expect(finishedAfter.count >= inFlight, "the \(inFlight) images in flight were abandoned")
        #expect(finishedAfter.allSatisfy { $0[string: "status"] == "written" })
        let written = events.files("written").count
        #expect(written < LargeImages.count, "no new image was taken")
        #expect(LargeImages.outputs(in: out.path).count == written)
        #expect(try pngcheckFailures(LargeImages.outputs(in: out.path).map { out.join($0) }) == [])
    }

    /// A second Ctrl-C exits at once, whatever is in flight; outputs are still whole.
    @Test func aSecondCtrlCStopsAtOnce() throws {
        let out = try TemporaryDirectory()
        let child = try startKiln(["export", LargeImages.directory, "--output", out.path, "--progress", "json",
                                   "--jobs", "2", "--level", "9", "--grace", "60"])
        #expect(child.waitUntil { fileEvents(child) >= 1 })
        child.send(SIGINT)
        #expect(child.waitUntil { child.stdoutSoFar.contains("\"event\":\"stopping\"") })
        child.send(SIGINT)
        let second = ContinuousClock.now
        let r = try child.wait(timeout: .seconds(30))
        let took = (ContinuousClock.now - second).seconds
        #expect(r.status == 75, "\(r.stderr)")
        // The promise is < 0.5 s; the bound leaves room for a loaded machine.
        #expect(took < 1.5, "exited \(took) s after the second Ctrl-C")
        #expect(Events(r.stdoutLines).all.last?["event"] as? String == "end")
        // One last `progress` just before `end`, as it ended (before, the last was the poll's, of fewer images, or
        // none came after the stop).
        let events = Events(r.stdoutLines).all
        let last = events.dropLast().last ?? [:], end = events.last ?? [:]
        #expect(last["event"] as? String == "progress", "\(r.stdout)")
        #expect(last["completed"] as? Int == (end["written"] as? Int ?? -1) + (end["skipped"] as? Int ?? 0) + (end["failed"] as? Int ?? 0),
                "\(r.stdout)")
        #expect(strayNames(out.path).isEmpty)
        #expect(try pngcheckFailures(LargeImages.outputs(in: out.path).map { out.join($0) }) == [])
    }

    @Test func aStalledJobExpiresAndIsResumable() throws {
        let out = try TemporaryDirectory()
        let r = try kiln(["export", LargeImages.directory, "--output", out.path, "--progress", "json",
                          "--stall-timeout", "1", "--jobs", "2"],
                         environment: ["KILN_TEST_STALL_AFTER": "2"], timeout: .seconds(60))
        #expect(r.status == 75, "\(r.stderr)")
        #expect((Events(r.stdoutLines).named("stopping").first ?? [:])[string: "reason"] == "stalled", "\(r.stdout)")
        #expect(try kiln(["resume", out.path, "--progress", "none"]).status == 0)
        #expect(LargeImages.matchesReference(out.path) == [])

        // A stall with no image in flight ends the task at once: its stopping event still comes, before the end.
        let idle = try TemporaryDirectory()
        let quick = try kiln(["export", Paths.sampleData, "--output", idle.path, "--progress", "json",
                              "--stall-timeout", "1", "--jobs", "1"],
                             environment: ["KILN_TEST_STALL_AFTER": "1"], timeout: .seconds(60))
        #expect(quick.status == 75, "\(quick.stderr)")
        let events = Events(quick.stdoutLines).all.compactMap { $0["event"] as? String }.filter { $0 != "progress" }
        #expect(events.suffix(2) == ["stopping", "end"], "\(quick.stdout)")
        #expect((Events(quick.stdoutLines).named("stopping").first ?? [:])[string: "reason"] == "stalled")
        // A resume names its outputs under the folder as given, as the export did (it named them from the root).
        let resumed = try kiln(["resume", idle.path, "--progress", "json"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let outputs = Events(resumed.stdoutLines).named("file").compactMap { $0["output"] as? String }
        #expect(!outputs.isEmpty && outputs.allSatisfy { $0.hasPrefix(idle.path + "/") && !$0.contains("/./") },
                "\(outputs)")
    }

    @Test func statusAndCancelFromAnotherProcess() throws {
        let out = try TemporaryDirectory()
        // The stall hook holds the job mid-way, so its state can be read at leisure.
        let child = try startKiln(["export", LargeImages.directory, "--output", out.path, "--progress", "json",
                                   "--jobs", "1", "--stall-timeout", "600"],
                                  environment: ["KILN_TEST_STALL_AFTER": "3"])
        #expect(child.waitUntil { fileEvents(child) >= 3 })
        var status: [String: Any] = [:]
        #expect(child.waitUntil(timeout: .seconds(10)) {
            status = self.status(out.path)
            return status["completed"] as? Int == 3 && (status["fraction"] as? Double ?? 0) > 0
        }, "status: \(status)")
        #expect(status["state"] as? String == "running")
        #expect(status["pid"] as? Int == Int(child.pid))
        #expect(status["total"] as? Int == LargeImages.count)
        #expect(status["written"] as? Int == 3)
        #expect(!status[string: "device"].isEmpty)
        let fraction = status["fraction"] as? Double ?? 0
        #expect(fraction > 0.05 && fraction < 0.5, "fraction \(fraction)")

        let cancel = try kiln(["cancel", out.path])
        #expect(cancel.status == 0, "\(cancel.stderr)")
        let r = try child.wait(timeout: .seconds(30))
        #expect(r.status == 75)
        let stopped = self.status(out.path)
        #expect(stopped["state"] as? String == "stopped")
        #expect(stopped["pid"] is NSNull)
        let again = try kiln(["cancel", out.path])
        #expect(again.status == 1, "nothing left to cancel is not a usage error")
        #expect(again.stderr.contains("not running") && !again.stderr.contains("USAGE"), "\(again.stderr)")
    }

    /// A job that wrote one image and then takes no new one (it stays running until stopped), and its state as
    /// `kiln status` says it.
    private func startHeldJob(in out: TemporaryDirectory) throws -> (child: ChildProcess, state: () -> String) {
        let child = try startKiln(["export", LargeImages.directory, "--output", out.path, "--progress", "json",
                                   "--jobs", "1", "--stall-timeout", "600"],
                                  environment: ["KILN_TEST_STALL_AFTER": "1"])
        #expect(child.waitUntil { fileEvents(child) >= 1 })
        return (child, { status(out.path)["state"] as? String ?? "" })
    }

    @Test func statusShowsSuspendedForAJobStoppedByCtrlZ() throws {
        let out = try TemporaryDirectory()
        let (child, state) = try startHeldJob(in: out)
        child.send(SIGTSTP)
        #expect(child.waitUntil(timeout: .seconds(10)) { state() == "suspended" }, "state: \(state())")
        child.send(SIGCONT)
        #expect(child.waitUntil(timeout: .seconds(10)) { state() == "running" }, "state: \(state())")
        #expect(try kiln(["cancel", out.path]).status == 0)
        #expect(try child.wait(timeout: .seconds(30)).status == 75)
    }

    /// A plain SIGSTOP (Slurm's `scontrol suspend`, a preempting scheduler) cannot be caught: the job's own status
    /// kept saying running, and `kiln cancel` said it had asked while the job stood still until continued.
    @Test func aJobStoppedBySIGSTOPIsSuspendedAndCancelContinuesIt() throws {
        let out = try TemporaryDirectory()
        let (child, state) = try startHeldJob(in: out)
        child.send(SIGSTOP)
        #expect(child.waitUntil(timeout: .seconds(10)) { state() == "suspended" }, "state: \(state())")
        let cancel = try kiln(["cancel", out.path])
        #expect(cancel.status == 0 && (cancel.stdout + cancel.stderr).contains("continued it"), "\(cancel.stdout)\(cancel.stderr)")
        #expect(try child.wait(timeout: .seconds(30)).status == 75)
    }

    /// Suspended by a plain SIGSTOP while stopping (a cluster suspending it within its grace): the cancel said the
    /// job was already stopping, and it stood still.
    @Test func aStoppingJobStoppedBySIGSTOPIsContinuedByCancel() throws {
        let out = try TemporaryDirectory()
        // Images slow enough (a strong blur at level 9) that one is still in flight as the steps below are taken.
        let child = try startKiln(["export", LargeImages.directory, "--output", out.path, "--progress", "json",
                                   "--jobs", "1", "--blur", "40", "--level", "9", "--grace", "600"])
        #expect(child.waitUntil { fileEvents(child) >= 1 })
        func state() -> String { status(out.path)["state"] as? String ?? "" }
        child.send(SIGTERM)
        #expect(child.waitUntil(timeout: .seconds(30)) { state() == "stopping" }, "state: \(state())")
        child.send(SIGSTOP)
        #expect(child.waitUntil(timeout: .seconds(10)) { state() == "suspended" }, "state: \(state())")
        let cancel = try kiln(["cancel", out.path])
        #expect(cancel.status == 0 && (cancel.stdout + cancel.stderr).contains("was continued"), "\(cancel.stdout)\(cancel.stderr)")
        #expect(try child.wait(timeout: .seconds(300)).status == 75)
    }

    /// A process stopped by a plain SIGSTOP for longer than the stall timeout is no stall once continued: its
    /// SIGCONT tells the watchdog (`TaskScheduler.processContinued`) that the time it stood still counts for
    /// nothing, and a poll late without one is judged a poll later. (The watchdog no longer takes every late
    /// poll for a stop: on a busy machine that hid stalls.) Here the work moves again at once after the
    /// continue, so this run would pass without the SIGCONT's word too; it guards the stop as a user makes it.
    @Test func aStopLongerThanTheStallTimeoutIsNoStall() throws {
        let out = try TemporaryDirectory()
        let child = try startKiln(["export", LargeImages.directory, "--output", out.path, "--progress", "json",
                                   "--jobs", "1", "--stall-timeout", "3"])
        #expect(child.waitUntil { fileEvents(child) >= 1 })
        child.send(SIGSTOP)
        usleep(6_000_000)
        child.send(SIGCONT)
        let r = try child.wait(timeout: .seconds(300))
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        #expect(Events(r.stdoutLines).named("stopping").isEmpty, "\(r.stdout)")
    }

    /// `kiln status` never shows a finished count its fraction leaves out: both come from one snapshot.
    @Test func statusCountsAndFractionAlwaysAgree() throws {
        let out = try TemporaryDirectory()
        let child = try startKiln(["export", LargeImages.directory, "--output", out.path, "--progress", "none",
                                   "--jobs", "2", "--keep-journal"])
        var samples: [(completed: Int, fraction: Double)] = []
        child.waitUntil(timeout: .seconds(120)) {
            let object = status(out.path)
            if object["state"] as? String == "running", let completed = object["completed"] as? Int,
               let fraction = object["fraction"] as? Double {
                samples.append((completed, fraction))
            }
            return false
        }
        #expect(try child.wait().status == 0)
        #expect(samples.count >= 5, "\(samples.count) samples while running")
        // The images are the same size, so n finished images are at least n/24 of the pixels.
        let behind = samples.filter { Double($0.completed) / Double(LargeImages.count) > $0.fraction + 0.0001 }
        #expect(behind.isEmpty, "fraction left out finished images: \(behind)")
        #expect(samples.contains { $0.completed > 0 })
    }

    @Test func aResumesSummarySeparatesThisRunFromEarlierOnes() throws {
        let out = try TemporaryDirectory()
        let child = try startKiln(["export", LargeImages.directory, "--output", out.path, "--progress", "json",
                                   "--jobs", "1", "--stall-timeout", "600"],
                                  environment: ["KILN_TEST_STALL_AFTER": "3"])
        #expect(child.waitUntil { fileEvents(child) >= 3 })
        child.send(SIGINT)
        #expect(try child.wait(timeout: .seconds(30)).status == 75)
        let resumed = try kiln(["resume", out.path, "--progress", "bar"])  // stderr is a file: lines, no bar
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let left = LargeImages.count - 3
        #expect(resumed.stderr.contains("kiln: \(left) written, 0 skipped, 0 failed (3 done by earlier runs) of 24"),
                "\(resumed.stderr)")
    }

    /// `--jobs N` is N images at once, also above the cores. Before, the workers ran on `concurrentPerform`,
    /// which libdispatch runs no wider than the cores: `--jobs 4` on 2 cores held 2 images.
    @Test func moreJobsThanCoresAreThatManyImagesAtOnce() throws {
        let dir = try TemporaryDirectory()
        let jobs = ProcessInfo.processInfo.activeProcessorCount + 2
        let release = dir.join("release")
        let child = try startKiln(["export", Paths.sampleData, "-o", dir.join("out"), "--jobs", "\(jobs)",
                                   "--progress", "json", "--grace", "60"],
                                  environment: ["KILN_TEST_PAUSE_DECODE": release])
        // Each image in flight waits at its decode, and says so with a byte.
        let paused = { (try? FileManager.default.attributesOfItem(atPath: release + ".paused")[.size] as? Int) ?? 0 }
        #expect(child.waitUntil { paused() >= jobs }, "\(paused()) of \(jobs) images in flight")
        child.send(SIGINT)
        #expect(child.waitUntil { child.stdoutSoFar.contains("\"event\":\"stopping\"") })
        #expect(FileManager.default.createFile(atPath: release, contents: Data()))
        let r = try child.wait(timeout: .seconds(120))
        #expect(r.status == 75, "\(r.stderr)")
        let stopping = Events(r.stdoutLines).named("stopping").first
        #expect(stopping?["inFlight"] as? Int == jobs, "\(r.stdout)")
        #expect(Events(r.stdoutLines).files("written").count == jobs, "the images in flight finish within the grace")
    }

    /// A Ctrl-C once the job is stopping for another reason (SIGTERM, SIGHUP) stops it at once, as its display says
    /// ("Ctrl-C again stops now"). Before, only a second SIGINT did: after a SIGTERM the Ctrl-C waited out the grace.
    @Test(arguments: [SIGTERM, SIGHUP])
    func aCtrlCAfterAnotherStopSignalStopsAtOnce(_ first: Int32) throws {
        let dir = try TemporaryDirectory()
        let release = dir.join("release")
        let child = try startKiln(["export", Paths.sampleData, "-o", dir.join("out"), "--jobs", "1", "--progress", "json",
                                   "--grace", "600"], environment: ["KILN_TEST_PAUSE_DECODE": release])
        let paused = { (try? FileManager.default.attributesOfItem(atPath: release + ".paused")[.size] as? Int) ?? 0 }
        #expect(child.waitUntil { paused() >= 1 }, "an image held in flight")
        child.send(first)
        #expect(child.waitUntil { child.stdoutSoFar.contains("\"event\":\"stopping\"") })
        child.send(SIGINT)
        // The image is held, and the grace is 600 s: only a stop at once ends the job within the wait.
        let r = try child.wait(timeout: .seconds(120))
        #expect(r.status == 75, "\(r.stderr)")
        #expect(Events(r.stdoutLines).named("end").count == 1, "\(r.stdout)")
        #expect(Events(r.stdoutLines).files("written").isEmpty, "the image held was abandoned: \(r.stdout)")
    }

    /// A stop signal from the moment kiln has read its command line, before the job's lifecycle stands (the inputs
    /// scanned, their headers read, the folder made): the stream still says `stopping` and ends with `end`, exit 75.
    /// Before, only the waits for device discovery and for a lock caught it: 20,000 inputs being scanned (device
    /// discovery's child started just before), a SIGTERM killed kiln outright (143, no `end`).
    @Test func aStopSignalWhileTheInputsAreScannedEndsTheStream() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        for index in 0..<20_000 { #expect(link(Paths.sampleData + "/rgb8.png", dir.join("in/\(index).png")) == 0) }
        let child = try startKiln(["export", dir.join("in"), "-o", dir.join("out"), "--progress", "json", "--device", "auto"])
        // Device discovery's child runs: kiln has started it and scans the inputs.
        let discovering = {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).contains { entry in
                // /proc/PID/stat: "PID (NAME) STATE PPID …"; the name may hold spaces, not ") ".
                guard Int32(entry) != nil, let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                      let close = stat.range(of: ") ", options: .backwards) else { return false }
                return stat[close.upperBound...].split(separator: " ").dropFirst().first == "\(child.pid)"
            }
        }
        // (Or 0.3 s on: a driver-less machine's discovery may end unseen; any moment before the job's end will do.)
        let started = ContinuousClock.now
        #expect(child.waitUntil { discovering() || ContinuousClock.now - started > .milliseconds(300) })
        let begun = child.stdoutSoFar.contains("\"event\":\"start\"")
        child.send(SIGTERM)
        let r = try child.wait(timeout: .seconds(120))
        #expect(r.status == 75, "the job had begun before the signal: \(begun); \(r.stderr)")
        let events = Events(r.stdoutLines)
        #expect(events.all.last?["event"] as? String == "end", "\(r.stdout.suffix(600))")
        #expect(events.named("stopping").first?[string: "reason"] == "systemTermination", "\(r.stdout.suffix(600))")
    }

    @Test func aSecondJobFailsAtOnceOrQueuesBehindTheFirst() throws {
        let slots = try TemporaryDirectory()
        let env = ["KILN_RUNTIME_DIR": slots.path]
        let first = try TemporaryDirectory(), second = try TemporaryDirectory(), third = try TemporaryDirectory()
        let holder = try startKiln(["export", LargeImages.directory, "--output", first.path, "--progress", "json",
                                    "--jobs", "1", "--stall-timeout", "600", "--device", "cpu"],
                                   environment: env.merging(["KILN_TEST_STALL_AFTER": "1"]) { $1 })
        #expect(holder.waitUntil { fileEvents(holder) >= 1 })

        // Refused before anything is written: no folder, no journal for `kiln status` to call resumable.
        let refused = try kiln(["export", Paths.sampleData, "--output", second.join("new"), "--progress", "json",
                                "--strategy", "fail", "--device", "cpu"], environment: env)
        #expect(refused.status == 69, "\(refused.stderr)")
        #expect(refused.elapsed < .seconds(1), "took \(refused.elapsed)")
        #expect(!FileManager.default.fileExists(atPath: second.join("new")))
        let error = Events(refused.stdoutLines).named("error").first?["message"] as? String ?? ""
        #expect(error.contains("kiln pid \(holder.pid) (Exporting \(LargeImages.count) images → ")
                && error.contains("holds the machine's CPU slot (--strategy fail)"), "\(error)")

        let waiter = try startKiln(["export", Paths.sampleData, "--output", third.path, "--progress", "json",
                                    "--device", "cpu"], environment: env)
        #expect(waiter.waitUntil(timeout: .seconds(10)) { waiter.stdoutSoFar.contains("\"event\":\"queued\"") })
        usleep(300_000)
        #expect(Paths.pngs(in: third.path).isEmpty, "a queued job does not start")
        let queued = Events(waiter.stdoutSoFar.split(separator: "\n").map(String.init)).named("queued")
        #expect(queued.first?["position"] as? Int == 1)

        #expect(try kiln(["cancel", first.path]).status == 0)
        #expect(try holder.wait(timeout: .seconds(30)).status == 75)
        let r = try waiter.wait(timeout: .seconds(60))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Paths.pngs(in: third.path).count == Paths.pngs(in: Paths.sampleData).count)
    }

    @Test func theJSONStreamIsCompleteAndRateLimited() throws {
        let out = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: out.join("in"), withIntermediateDirectories: true)
        let inputs = Array(Paths.pngs(in: LargeImages.directory).prefix(8)).map { LargeImages.directory + "/" + $0 }
            + [try Fixtures.pngSuitePath("xs1n0g01.png")]
        let r = try kiln(["export"] + inputs + ["--output", out.join("out"), "--jobs", "1"])  // not a TTY: JSON by default
        #expect(r.status == 1)
        let lines = r.stdoutLines
        let events = Events(lines)
        #expect(events.all.count == lines.count, "every line parses")
        #expect(events.all.first?["event"] as? String == "start")
        #expect(events.all.last?["event"] as? String == "end")
        let files = events.named("file")
        #expect(files.count == inputs.count)
        #expect(Set(files.compactMap { $0["input"] as? String }) == Set(inputs))
        let end = events.all.last ?? [:]
        #expect(end["written"] as? Int == Paths.pngs(in: out.join("out")).count)
        #expect(end["failed"] as? Int == 1)
        #expect(end["exitCode"] as? Int == 1)
        let progress = events.named("progress").count
        #expect(Double(progress) <= 2 * r.elapsed.seconds + 2, "\(progress) progress events in \(r.elapsed)")
        // The last progress event, just before the end, shows the job as it ended: every image done, the fraction 1
        // (it said 9 of 20, 0.60, whatever came after within half a second).
        let last = try #require(events.named("progress").last)
        #expect(last["completed"] as? Int == inputs.count && last["failed"] as? Int == 1 && last["fraction"] as? Double == 1,
                "\(last)")
        let lastProgress = try #require(events.all.lastIndex { $0["event"] as? String == "progress" })
        #expect(events.all[(lastProgress + 1)...].allSatisfy { ["file", "warning", "end"].contains($0["event"] as? String ?? "") })
    }
}
