import Foundation
import KilnTestSupport
import Testing

/// `--notify desktop` where a KDE job view server is on the bus (SPEC §10), against the test's own
/// `org.kde.JobViewServer` on a private bus (Tests/Fixtures/dbus/jobview-server.py): one view requested
/// Killable|Suspendable, progress at most once a second with a percent that never decreases, `terminate`
/// once at the end, no freedesktop notification; the view's Cancel stops the job as Ctrl-C does; its
/// Suspend holds the job, which the stall watchdog does not expire, until Resume.
@Suite(.serialized, .enabled(if: PrivateBus.unavailable == nil, "\(PrivateBus.unavailable ?? "")"))
struct KDEJobViewTests {
    private func fileEvents(_ child: ChildProcess) -> Int {
        child.stdoutSoFar.components(separatedBy: "\"event\":\"file\"").count - 1
    }

    private func arguments(_ call: [String: Any]) -> [Any] { call["args"] as? [Any] ?? [] }

    /// The percents of the `setPercent` calls, and the gaps between them, last one left out (the end is shown at once).
    private func progress(_ server: FakeJobViewServer) -> (percents: [Int], gaps: [Double]) {
        let calls = server.calls("setPercent")
        let times = calls.dropLast().compactMap { $0["time"] as? Double }
        return (calls.compactMap { arguments($0).first as? Int }, zip(times.dropFirst(), times).map { $0 - $1 })
    }

    @Test func aViewIsRequestedAndFollowsTheJobToItsEnd() throws {
        let dir = try TemporaryDirectory()
        let bus = try PrivateBus(in: dir)
        let server = try FakeJobViewServer(on: bus, in: dir)
        let out = dir.join("out")
        let r = try kiln(["export", LargeImages.directory, "--output", out, "--progress", "none", "--jobs", "1",
                          "--notify", "desktop"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(r.status == 0 && !r.stderr.contains("warning:"), "\(r.stderr)")

        let requests = server.calls("requestView")
        #expect(requests.count == 1, "\(server.records)")
        #expect(requests.first.map { arguments($0)[0] as? String == "kiln" && arguments($0)[2] as? Int == 3 } == true,
                "capabilities Killable|Suspendable: \(requests)")
        let (percents, gaps) = progress(server)
        #expect(percents.count >= 2 && percents == percents.sorted() && percents.last == 100, "\(percents)")
        #expect(gaps.allSatisfy { $0 >= 0.95 }, "gaps between updates: \(gaps)")
        let total = server.calls("setTotalAmount").map(arguments)
        #expect(total.count == 1 && total.first?[0] as? Int == LargeImages.count && total.first?[1] as? String == "files")
        let processed = server.calls("setProcessedAmount").compactMap { arguments($0).first as? Int }
        #expect(processed == processed.sorted() && processed.last == LargeImages.count, "\(processed)")
        let messages = server.calls("setInfoMessage").compactMap { arguments($0).first as? String }
        #expect(messages.first == "Exporting \(LargeImages.count) images"
                && messages.last == "Exporting \(LargeImages.count) images — done", "\(messages)")
        let fields = server.calls("setDescriptionField").map(arguments)
        #expect(fields.contains { $0[1] as? String == "Progress" && ($0[2] as? String ?? "").contains("of \(LargeImages.count) images") })
        // Ended once, last, with no error message.
        let terminations = server.calls("terminate").map(arguments)
        #expect(terminations.count == 1 && terminations.first?.first as? String == "", "\(terminations)")
        #expect(server.records.last?["method"] as? String == "terminate")
        #expect(bus.notifications.isEmpty, "the freedesktop server was used too: \(bus.notifications)")
        #expect(LargeImages.matchesReference(out) == [])
        print("kde: \(percents.count) updates, percents \(percents), smallest gap "
              + "\(String(format: "%.3f", gaps.min() ?? 0)) s, processed \(processed), \(server.records.count) calls")
    }

    @Test func cancelInTheViewStopsLikeCtrlCAndResumeFinishes() throws {
        let dir = try TemporaryDirectory()
        let bus = try PrivateBus(in: dir)
        let server = try FakeJobViewServer(on: bus, in: dir, name: "org.kde.kuiserver", cancelAt: 25)
        let out = dir.join("out")
        // One image at a time; should the machine outrun the updates, the stall hook holds the job at half way.
        let child = try startKiln(["export", LargeImages.directory, "--output", out, "--progress", "json", "--jobs", "1",
                                   "--notify", "desktop", "--stall-timeout", "600"],
                                  environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address,
                                                "KILN_TEST_STALL_AFTER": "\(LargeImages.count / 2)"])
        let r = try child.wait(timeout: .seconds(300))
        #expect(r.status == 75, "\(r.stderr)")

        let records = server.records
        let cancelled = records.firstIndex { $0["emitted"] as? String == "cancelRequested" }
        #expect(cancelled != nil, "the server never sent cancelRequested: \(records)")
        let (percents, gaps) = progress(server)
        #expect(percents == percents.sorted() && (percents.last ?? 0) >= 25, "\(percents)")
        #expect(gaps.allSatisfy { $0 >= 0.95 }, "gaps between updates: \(gaps)")
        // Stopped as Ctrl-C does: reason cancelled, the images in flight written.
        let (inFlight, written) = Events(r.stdoutLines).stoppedLikeCtrlC(out: out)
        // Ended once, saying how.
        let terminations = server.calls("terminate").compactMap { arguments($0).first as? String }
        #expect(terminations.count == 1 && terminations[0].contains("\(written) written")
                && terminations[0].contains("stopped, resumable"), "\(terminations)")
        #expect(bus.notifications.isEmpty)
        print("kde cancel: \(percents.count) updates, percents \(percents), Cancel at \(percents.last ?? -1) %, "
              + "\(inFlight) in flight, \(written) written, exit \(r.status ?? -1), terminate(\"\(terminations.first ?? "")\")")

        let resumed = try kiln(["resume", out, "--progress", "none", "--notify", "none"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(LargeImages.matchesReference(out) == [])
    }

    @Test func suspendHoldsTheJobPastTheStallTimeoutAndResumeFinishes() throws {
        let dir = try TemporaryDirectory()
        let bus = try PrivateBus(in: dir)
        let resume = dir.join("resume")
        let server = try FakeJobViewServer(on: bus, in: dir, suspendAt: 25, resumeWhen: resume)
        let out = dir.join("out")
        // Durations from the work: the stall timeout is twice an image's time (at least 2 s), so a running job
        // never stalls; the job is held for three stall timeouts, which a watchdog counting the pause would expire.
        let perImage = LargeImages.reference.secondsPerImage
        let stall = max(2, Int((2 * perImage).rounded(.up)))
        let settle = perImage + 0.5  // the image in flight reaches its next strip (or its end)
        let hold = 3.0 * Double(stall)
        // Under systemd too: its STATUS= line says the job is paused (it showed a running job's fields).
        let systemd = try NotifyListener(dir.join("notify"))
        let child = try startKiln(["export", LargeImages.directory, "--output", out, "--progress", "json", "--jobs", "1",
                                   "--notify", "desktop", "--stall-timeout", "\(stall)"],
                                  environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "NOTIFY_SOCKET": systemd.name])
        #expect(systemd.listen(to: child, for: .seconds(120)) {
            server.calls("setSuspended").contains { arguments($0).first as? Bool == true }
        }, "no setSuspended(true): \(server.records)")
        systemd.listen(to: child, for: .seconds(settle))
        let before = (files: LargeImages.outputs(in: out).count, events: fileEvents(child))
        let heldFrom = ContinuousClock.now
        systemd.listen(to: child, for: .seconds(hold))
        #expect(systemd.lines.contains { $0.hasPrefix("STATUS=") && $0.contains(" — paused · ") },
                "systemd's status never said paused: \(systemd.lines.filter { $0.hasPrefix("STATUS=") }.suffix(5))")
        let status = try kiln(["status", out])
        let after = (files: LargeImages.outputs(in: out).count, events: fileEvents(child))
        let held = (ContinuousClock.now - heldFrom).seconds
        #expect(before == after, "outputs appeared while suspended: \(before) → \(after)")
        #expect(before.files < LargeImages.count)
        #expect(status.stdout.contains("suspended:"), "kiln status: \(status.stdout)")
        #expect(!child.stdoutSoFar.contains("\"event\":\"stopping\""), "the job was stopped while suspended: \(child.stdoutSoFar)")
        _ = FileManager.default.createFile(atPath: resume, contents: Data())
        let r = try child.wait(timeout: .seconds(300))
        #expect(r.status == 0, "\(r.stderr)")
        let suspensions = server.calls("setSuspended").compactMap { arguments($0).first as? Bool }
        #expect(suspensions == [true, false], "\(suspensions)")
        let emitted = server.records.compactMap { $0["emitted"] as? String }
        #expect(emitted == ["suspendRequested", "resumeRequested"])
        let (percents, _) = progress(server)
        #expect(percents == percents.sorted() && percents.last == 100, "\(percents)")
        let details = server.calls("setDescriptionField").compactMap { arguments($0)[2] as? String }
        #expect(details.contains { $0.hasPrefix("paused · ") }, "\(details)")
        #expect(server.calls("terminate").compactMap { arguments($0).first as? String } == [""])
        #expect(LargeImages.matchesReference(out) == [])
        // The JSON stream says the job is paused, with no estimate, and leaves the pause out of its rate: counted as
        // slow work, a 3 s pause took the throughput from 7.5 to 2.3 MPix/s and the ETA from 11 s to 35 s.
        let events = Events(r.stdoutLines).named("progress")
        let pausedEvents = events.filter { $0["paused"] as? Bool == true }
        #expect(!pausedEvents.isEmpty && pausedEvents.allSatisfy { $0["etaSeconds"] is NSNull }, "\(pausedEvents.prefix(3))")
        if let first = events.firstIndex(where: { $0["paused"] as? Bool == true }),
           let rateBefore = events[..<first].last?["pixelsPerSecond"] as? Int,
           let rateAfter = events[first...].first(where: { $0["paused"] as? Bool == false })?["pixelsPerSecond"] as? Int {
            #expect(Double(rateAfter) >= 0.4 * Double(rateBefore), "the rate fell from \(rateBefore) to \(rateAfter) after the pause")
        }
        print("kde suspend: \(details.filter { $0.hasPrefix("paused") }),  held \(String(format: "%.1f", held)) s with --stall-timeout \(stall) s, "
              + "\(before.files) outputs before and \(after.files) after the hold, setSuspended \(suspensions), "
              + "percents \(percents), exit \(r.status ?? -1)")
    }

    /// A bus that dies mid-job costs one warning; the job finishes as without the view.
    @Test func aBusKilledMidJobCostsOneWarning() throws {
        let dir = try TemporaryDirectory()
        let bus = try PrivateBus(in: dir)
        let server = try FakeJobViewServer(on: bus, in: dir)
        let out = dir.join("out"), release = dir.join("release")
        let child = try startKiln(["export", SmallImages.directory, "--output", out, "--progress", "none",
                                   "--notify", "desktop", "--stall-timeout", "600"] + SmallImages.operations,
                                  environment: SmallImages.environment.merging(
                                      ["DBUS_SESSION_BUS_ADDRESS": bus.address, "KILN_TEST_STALL_AFTER": "100",
                                       "KILN_TEST_STALL_RELEASE": release]) { $1 })
        #expect(child.waitUntil { !server.calls("setPercent").isEmpty })
        bus.killBus()
        #expect(child.waitUntil(timeout: .seconds(60)) { child.stderrSoFar.contains("KDE job view stopped") })
        _ = FileManager.default.createFile(atPath: release, contents: Data())
        let r = try child.wait(timeout: .seconds(300))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(SmallImages.mismatches(out) == [])
        #expect(r.stderr.components(separatedBy: "warning:").count - 1 == 1, "\(r.stderr)")
        #expect(bus.notifications.isEmpty)
    }
}
