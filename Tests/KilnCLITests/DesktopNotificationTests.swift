import Foundation
import KilnTestSupport
import Testing

/// `--notify desktop` on a real private session bus with a notification server
/// the test runs (SPEC §10): one notification replaced in place at most once a
/// second, a `value` that never decreases, a Cancel that stops the job as Ctrl-C
/// does, a last notification with the counts; and a bus that is missing or dies
/// changes nothing but one warning.
@Suite(.serialized, .enabled(if: PrivateBus.unavailable == nil, "\(PrivateBus.unavailable ?? "")"))
struct DesktopNotificationTests {
    /// An export of the small images into `dir`/out with `options`, held after its first image until the server
    /// recorded a notification, then let go; its outcome.
    private func exportHeldAfterOne(_ dir: TemporaryDirectory, bus: PrivateBus, _ options: [String]) throws -> ChildProcess.Outcome {
        let release = dir.join("release")
        let child = try startKiln(["export", SmallImages.directory, "--output", dir.join("out"), "--notify", "desktop",
                                   "--stall-timeout", "600"] + options + SmallImages.operations,
                                  environment: SmallImages.environment.merging(
                                      ["DBUS_SESSION_BUS_ADDRESS": bus.address, "KILN_TEST_STALL_AFTER": "1",
                                       "KILN_TEST_STALL_RELEASE": release]) { $1 })
        #expect(child.waitUntil(timeout: .seconds(60)) { !bus.notifications.isEmpty })
        _ = FileManager.default.createFile(atPath: release, contents: Data())
        return try child.wait(timeout: .seconds(300))
    }

    private func fileEvents(_ child: ChildProcess) -> Int {
        child.stdoutSoFar.components(separatedBy: "\"event\":\"file\"").count - 1
    }

    @Test func cancelInTheNotificationStopsLikeCtrlCAndResumeFinishes() throws {
        let dir = try TemporaryDirectory()
        let bus = try PrivateBus(in: dir, cancelAt: 25)
        let out = dir.join("out")
        // One image at a time: one is always in flight, and the value moves in small steps. Should the machine
        // outrun the notifications, the stall hook holds the job at half way until the Cancel.
        let child = try startKiln(["export", LargeImages.directory, "--output", out, "--progress", "json", "--jobs", "1",
                                   "--notify", "desktop", "--stall-timeout", "600"],
                                  environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address,
                                                "KILN_TEST_STALL_AFTER": "\(LargeImages.count / 2)"])
        let r = try child.wait(timeout: .seconds(300))
        #expect(r.status == 75, "\(r.stderr)")

        let records = bus.records
        let notifications = bus.notifications
        let progress = notifications.filter { ($0["actions"] as? [String]) == ["cancel"] }
        let invoked = records.firstIndex { $0["invoked"] != nil }
        #expect(invoked != nil, "the server never invoked Cancel: \(records)")
        let cancelledAt = records[..<(invoked ?? 0)].last?["value"] as? Int ?? -1
        // One notification, replaced in place.
        let ids = Set(notifications.compactMap { $0["id"] as? Int })
        #expect(ids.count == 1 && notifications.first?["replacesID"] as? Int == 0)
        #expect(notifications.dropFirst().allSatisfy { $0["replacesID"] as? Int == $0["id"] as? Int })
        // The value never decreases and reached 25 % before the Cancel; the stopped job's last notification has none
        // (its percent counted the images in flight, which the stop drops).
        let values = notifications.compactMap { $0["value"] as? Int }
        #expect(values.count == notifications.count - 1 && values == values.sorted(), "\(values)")
        #expect(notifications.last?["value"] as? Int == nil, "\(notifications.last ?? [:])")
        #expect(values.last ?? 0 >= 25)
        // At most one update a second (the server's clock; 50 ms for scheduling).
        let times = progress.compactMap { $0["time"] as? Double }
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(gaps.allSatisfy { $0 >= 0.95 }, "gaps between updates: \(gaps)")
        // The Cancel stopped the job as Ctrl-C does: reason cancelled, the images in flight written.
        let (inFlight, written) = Events(r.stdoutLines).stoppedLikeCtrlC(out: out)
        // The last notification says how it ended, with the counts, and offers no Cancel.
        let last = notifications.last ?? [:]
        #expect(last[string: "body"].contains("\(written) written") && last[string: "body"].contains("of \(LargeImages.count)"))
        #expect(last[string: "body"].contains("stopped, resumable") && (last["actions"] as? [String]) == [])
        print("desktop: \(progress.count) progress updates in \(String(format: "%.1f", (times.last ?? 0) - (times.first ?? 0))) s, "
              + "smallest gap \(String(format: "%.3f", gaps.min() ?? 0)) s, values \(values), "
              + "Cancel at \(cancelledAt) %, \(inFlight) in flight, \(written) written")

        // The resume's notification starts where the stopped run ended (it said 0 % · 0 of N a second first).
        let before = notifications.count
        let resumed = try kiln(["resume", out, "--progress", "none", "--notify", "desktop"],
                               environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(LargeImages.matchesReference(out) == [])
        let first = bus.notifications.dropFirst(before).first ?? [:]
        #expect((first["value"] as? Int ?? 0) >= values.last ?? 0, "\(first)")
        #expect(!first[string: "body"].contains(" 0 of "), "\(first)")
    }

    @Test func aBusThatIsNotThereChangesNothing() throws {
        let dir = try TemporaryDirectory()
        let base = ["export", SmallImages.directory, "--progress", "none"] + SmallImages.operations
        let none = try kiln(base + ["--output", dir.join("none"), "--notify", "none"], environment: SmallImages.environment)
        let nowhere = try kiln(base + ["--output", dir.join("nowhere"), "--notify", "desktop"],
                               environment: SmallImages.environment.merging(
                                   ["DBUS_SESSION_BUS_ADDRESS": "unix:path=" + dir.join("no-bus")]) { $1 })
        #expect(none.status == 0 && nowhere.status == none.status, "\(nowhere.stderr)")
        #expect(SmallImages.mismatches(dir.join("none")) == [])
        #expect(SmallImages.mismatches(dir.join("nowhere")) == [])
        #expect(nowhere.stderr.components(separatedBy: "warning:").count - 1 == 1, "\(nowhere.stderr)")
        #expect(nowhere.stderr.contains("no desktop notifications"))
        // `auto` tries the bus its address names, and says nothing when it is not there.
        let auto = try kiln(base + ["--output", dir.join("auto"), "--notify", "auto"],
                            environment: SmallImages.environment.merging(
                                ["DBUS_SESSION_BUS_ADDRESS": "unix:path=" + dir.join("no-bus")]) { $1 })
        #expect(auto.status == 0 && !auto.stderr.contains("warning:"), "\(auto.stderr)")
        #expect(SmallImages.mismatches(dir.join("auto")) == [])
    }

    /// With no libdbus to open (`KILN_DBUS_LIBRARY` naming a missing file), a bus and a server there change nothing.
    @Test func noLibdbusChangesNothing() throws {
        let dir = try TemporaryDirectory()
        let bus = try PrivateBus(in: dir)
        let r = try kiln(["export", SmallImages.directory, "--output", dir.join("out"), "--progress", "none",
                          "--notify", "desktop"] + SmallImages.operations,
                         environment: SmallImages.environment.merging(
                             ["DBUS_SESSION_BUS_ADDRESS": bus.address, "KILN_DBUS_LIBRARY": dir.join("libdbus-1.so.3")]) { $1 })
        #expect(r.status == 0, "\(r.stderr)")
        #expect(SmallImages.mismatches(dir.join("out")) == [])
        #expect(bus.notifications.isEmpty)
        #expect(r.stderr.components(separatedBy: "warning:").count - 1 == 1 && r.stderr.contains("no desktop notifications"),
                "\(r.stderr)")
    }

    /// `auto` with a bus and no bar drawn (standard error is a file here): the notification is shown.
    @Test func autoShowsTheNotificationWhenNoBarIsDrawn() throws {
        let dir = try TemporaryDirectory()
        let bus = try PrivateBus(in: dir)
        let r = try kiln(["export", SmallImages.directory, "--output", dir.join("out"), "--progress", "none"]
                         + SmallImages.operations,
                         environment: SmallImages.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 })
        #expect(r.status == 0 && !r.stderr.contains("warning:"), "\(r.stderr)")
        let last = bus.notifications.last ?? [:]
        #expect(last[string: "summary"] == "Exporting \(SmallImages.count) images — done", "\(bus.notifications)")
        #expect(last[string: "body"].contains("\(SmallImages.count) written") && last["value"] as? Int == 100)
    }

    /// A server that reads markup in the body is sent `&`, `<` and `>` escaped: a subtitle "a < b & c <i>" showed as
    /// broken markup (GNOME, Plasma, dunst and mako read it); one that does not is sent the text as it is.
    @Test func theBodyIsEscapedForAServerThatReadsMarkup() throws {
        for markup in [true, false] {
            let dir = try TemporaryDirectory()
            let bus = try PrivateBus(in: dir, markup: markup)
            // Held until a notification of progress (with its subtitle) was shown.
            let r = try exportHeldAfterOne(dir, bus: bus, ["--progress", "none", "--title", "Tom & Jerry <b>",
                                                           "--subtitle", "a < b & c <i>"])
            #expect(r.status == 0, "\(r.stderr)")
            let first = bus.notifications.first ?? [:]
            #expect(first[string: "summary"] == "Tom & Jerry <b>", "the summary is plain text: \(first)")
            #expect(first[string: "body"].hasPrefix(markup ? "a &lt; b &amp; c &lt;i&gt; · " : "a < b & c <i> · "), "\(first)")
        }
    }

    /// A notification server that never answers: the end waits at most 5 s for it, so a short job ends first, saying
    /// so once. (Before, the warning came as a JSON line after `end`, which is the last line.)
    @Test func aServerThatDoesNotAnswerLeavesEndTheLastLine() throws {
        let dir = try TemporaryDirectory()
        let bus = try PrivateBus(in: dir)
        bus.freezeServer()
        let r = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", dir.join("out"), "--progress", "json",
                          "--notify", "desktop"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Events(r.stdoutLines).all.last?["event"] as? String == "end", "\(r.stdout)")
        let said = Events(r.stdoutLines).named("warning").map { $0[string: "message"] }.filter { $0.contains("desktop notifications") }
            + r.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("kiln: warning: ") && $0.contains("desktop notifications") }
        #expect(said.count == 1, "said once, in the stream or after it: \(r.stdout)\n\(r.stderr)")
    }

    /// A server that answers the first notification 3 s after it came (one D-Bus starts for it, a busy shell) shows
    /// the job to its end: the notification it showed is replaced, never left behind. Before, kiln gave up after 2 s
    /// and sent nothing more, and the first notification stayed at 0 %, its Cancel doing nothing, after the job ended.
    @Test func aSlowServerShowsTheJobToItsEnd() throws {
        let dir = try TemporaryDirectory()
        let bus = try PrivateBus(in: dir, firstReplyDelay: 3)
        let r = try exportHeldAfterOne(dir, bus: bus, ["--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let notifications = bus.notifications
        let ids = Set(notifications.compactMap { $0["id"] as? Int })
        #expect(ids.count == 1 && notifications.dropFirst().allSatisfy { $0["replacesID"] as? Int == $0["id"] as? Int },
                "one notification, replaced in place: \(notifications)")
        #expect(notifications.last?[string: "summary"] == "Exporting \(SmallImages.count) images — done", "\(notifications)")
        #expect(!r.stderr.contains("warning:") && Events(r.stdoutLines).named("warning").isEmpty, "\(r.stdout)\n\(r.stderr)")
    }

    /// A run killed (kill -9, a crash) left its notification on the screen at its last percent, with a Cancel that
    /// did nothing, and the next run showed one more. The next run in the folder (here `kiln resume`) replaces it,
    /// where the same server on the same bus showed it; on another bus (a new session, whose server numbers its own
    /// notifications from 1 again) it replaces nothing.
    @Test(arguments: [true, false])
    func theNextRunReplacesAKilledRunsNotification(onTheSameBus: Bool) throws {
        let dir = try TemporaryDirectory(), otherDir = try TemporaryDirectory()
        let bus = try PrivateBus(in: dir)
        let out = dir.join("out")
        let child = try startKiln(["export", SmallImages.directory, "--output", out, "--progress", "none",
                                   "--notify", "desktop", "--stall-timeout", "600"] + SmallImages.operations,
                                  environment: SmallImages.environment.merging(
                                      ["DBUS_SESSION_BUS_ADDRESS": bus.address, "KILN_TEST_STALL_AFTER": "1"]) { $1 })
        #expect(child.waitUntil(timeout: .seconds(60)) {
            (try? String(contentsOfFile: out + "/.kiln/status.json", encoding: .utf8))?.contains("\"notification\"") == true
        })
        child.send(SIGKILL)
        _ = try child.wait(timeout: .seconds(60))
        let killed = try #require(bus.notifications.last?["id"] as? Int)
        let next = onTheSameBus ? bus : try PrivateBus(in: otherDir)
        let before = next.notifications.count
        let resumed = try kiln(["resume", out, "--progress", "none", "--notify", "desktop"],
                               environment: SmallImages.environment.merging(["DBUS_SESSION_BUS_ADDRESS": next.address]) { $1 })
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(SmallImages.mismatches(out) == [])
        let shown = Array(next.notifications.dropFirst(before))
        #expect(shown.first?["replacesID"] as? Int == (onTheSameBus ? killed : 0), "\(shown)")
        #expect(Set(shown.compactMap { $0["id"] as? Int }).count == 1, "one notification, replaced in place: \(shown)")
    }

    @Test func aBusKilledMidJobCostsOneWarning() throws {
        let dir = try TemporaryDirectory()
        let bus = try PrivateBus(in: dir)
        let out = dir.join("out"), release = dir.join("release")
        let child = try startKiln(["export", SmallImages.directory, "--output", out, "--progress", "none",
                                   "--notify", "desktop", "--stall-timeout", "600"] + SmallImages.operations,
                                  environment: SmallImages.environment.merging(
                                      ["DBUS_SESSION_BUS_ADDRESS": bus.address, "KILN_TEST_STALL_AFTER": "100",
                                       "KILN_TEST_STALL_RELEASE": release]) { $1 })
        #expect(child.waitUntil { !bus.notifications.isEmpty })
        bus.killBus()
        // The kill can land between the server recording the first notification and kiln reading
        // the reply (seen with two CPU hogs beside the suite): kiln cannot know it was shown, and
        // says "no desktop notifications" rather than "… stopped". Either way: one warning.
        #expect(child.waitUntil(timeout: .seconds(60)) {
            child.stderrSoFar.contains("desktop notifications stopped") || child.stderrSoFar.contains("no desktop notifications")
        }, "\(child.stderrSoFar)")
        _ = FileManager.default.createFile(atPath: release, contents: Data())
        let r = try child.wait(timeout: .seconds(300))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(SmallImages.mismatches(out) == [])
        #expect(r.stderr.components(separatedBy: "warning:").count - 1 == 1, "\(r.stderr)")
    }
}
