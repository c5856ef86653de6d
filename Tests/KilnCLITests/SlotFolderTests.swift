import Foundation
import KilnTestSupport
import Testing

/// The machine's slot folder must be the user's alone: a folder another user
/// owns, a symlink, or a folder others can write is refused at the start with
/// the folder, the reason and `KILN_RUNTIME_DIR` as the way out (exit 69, an
/// `end` event), and nothing is created in it or through it — nor in the output.
/// The default `/tmp/kiln-<uid>` is checked the same way, as user `nobody`.
@Suite struct SlotFolderTests {
    /// Every path under `root`, sorted (empty when there is nothing or it cannot be read).
    private func listing(_ root: String) -> [String] {
        (FileManager.default.subpaths(atPath: root) ?? []).sorted()
    }

    /// Exports one small image into `out` with the slot folder `runtime`.
    private func export(_ out: String, runtime: String) throws -> ChildProcess.Outcome {
        try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", out, "--progress", "json"],
                 environment: ["KILN_RUNTIME_DIR": runtime])
    }

    /// The refusal: exit 69, the message (folder, reason, the way out) as an `error` event, `end` last, no output.
    private func expectRefused(_ r: ChildProcess.Outcome, folder: String, reason: String, out: String) {
        #expect(r.status == 69, "\(r.stdout)\n\(r.stderr)")
        let events = Events(r.stdoutLines)
        let message = events.named("error").first?[string: "message"] ?? ""
        #expect(message.contains("the slot folder \(folder) \(reason)"), "\(r.stdout)")
        #expect(message.contains("KILN_RUNTIME_DIR"), "the way out is named: \(message)")
        #expect(events.all.last?["event"] as? String == "end")
        #expect(events.all.last?["exitCode"] as? Int == 69)
        #expect(!FileManager.default.fileExists(atPath: out), "the job stopped before writing its output folder")
    }

    @Test func aFolderOwnedByAnotherUserIsRefused() throws {
        let dir = try TemporaryDirectory()
        let slots = dir.join("slots"), out = dir.join("out")
        #expect(mkdir(slots, 0o700) == 0)
        #expect(chown(slots, 12345, 12345) == 0, "the test runs as root to hand the folder to another user")
        let r = try export(out, runtime: slots)
        expectRefused(r, folder: slots, reason: "is owned by uid 12345, not you (uid \(geteuid()))", out: out)
        #expect(listing(slots) == [], "nothing was created in the other user's folder")
    }

    @Test func aSymlinkIsRefusedAndNothingIsCreatedThroughIt() throws {
        let dir = try TemporaryDirectory()
        let target = dir.join("target"), slots = dir.join("slots"), out = dir.join("out")
        #expect(mkdir(target, 0o700) == 0)
        try Data("kept".utf8).write(to: URL(fileURLWithPath: target + "/someone-elses"))
        #expect(symlink(target, slots) == 0)
        let before = listing(target)
        let r = try export(out, runtime: slots)
        expectRefused(r, folder: slots, reason: "is a symbolic link", out: out)
        #expect(listing(target) == before, "nothing was created through the symlink")
        #expect(before == ["someone-elses"])
    }

    /// A folder others or its group can write is refused, saying which (it said "others" for 0775 too).
    @Test(arguments: [(mode_t(0o777), "is writable by others (mode 0777)"), (0o775, "is writable by its group (mode 0775)")])
    func aFolderOthersCanWriteIsRefused(_ mode: mode_t, _ reason: String) throws {
        let dir = try TemporaryDirectory()
        let slots = dir.join("slots"), out = dir.join("out")
        #expect(mkdir(slots, 0o700) == 0)
        #expect(chmod(slots, mode) == 0)
        let r = try export(out, runtime: slots)
        expectRefused(r, folder: slots, reason: reason, out: out)
        #expect(listing(slots) == [])
    }

    /// The control: the same export with a folder of the user's own runs, and the folder is made 0700.
    @Test func aFolderOfYourOwnIsMadePrivateAndUsed() throws {
        let dir = try TemporaryDirectory()
        let slots = dir.join("new/slots"), out = dir.join("out")
        let r = try export(out, runtime: slots)
        #expect(r.status == 0, "\(r.stderr)")
        var info = stat()
        #expect(lstat(slots, &info) == 0 && info.st_mode & 0o7777 == 0o700, "mode \(String(info.st_mode & 0o7777, radix: 8))")
        #expect(listing(slots).contains { $0.hasSuffix(".lock") }, "\(listing(slots))")
        #expect(FileManager.default.fileExists(atPath: out + "/rgb8.png"))
    }

    /// The default `/tmp/kiln-<uid>`, made beforehand by root, refused for `nobody`; and accepted once it is
    /// nobody's own with mode 0700, refused again when it is open to others (the stricter rule of the default).
    @Test func theDefaultFolderInTmpMustBeYoursAndPrivate() throws {
        guard geteuid() == 0 else { return }  // only root can hand a folder to another user
        let setpriv = "/usr/bin/setpriv"
        try #require(FileManager.default.isExecutableFile(atPath: setpriv), "the test needs setpriv (util-linux)")
        let nobody: uid_t = 65534
        let slots = "/tmp/kiln-\(nobody)"
        // A folder of a real nobody's kiln is put back afterwards.
        let aside = slots + ".aside-" + UUID().uuidString
        let existed = rename(slots, aside) == 0
        defer {
            _ = try? FileManager.default.removeItem(atPath: slots)
            if existed { rename(aside, slots) }
        }
        let dir = try TemporaryDirectory()
        #expect(chmod(dir.path, 0o777) == 0, "nobody writes the outputs here")
        func exportAsNobody(_ out: String) throws -> ChildProcess.Outcome {
            // env -u: the default applies only when neither variable is set.
            try ChildProcess("/usr/bin/env", ["-u", "KILN_RUNTIME_DIR", "-u", "XDG_RUNTIME_DIR", setpriv,
                                              "--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", Paths.kiln,
                                              "export", Paths.sampleData + "/rgb8.png", "--output", out,
                                              "--progress", "json"]).wait(timeout: .seconds(120))
        }

        #expect(mkdir(slots, 0o700) == 0)
        let r = try exportAsNobody(dir.join("out1"))
        expectRefused(r, folder: slots, reason: "is owned by uid 0, not you (uid \(nobody))", out: dir.join("out1"))
        #expect(listing(slots) == [])

        #expect(chown(slots, nobody, nobody) == 0)
        let own = try exportAsNobody(dir.join("out2"))
        #expect(own.status == 0, "\(own.stdout)\n\(own.stderr)")
        #expect(listing(slots).contains { $0.hasSuffix(".lock") }, "\(listing(slots))")

        #expect(chmod(slots, 0o755) == 0)
        let before = listing(slots)
        let open = try exportAsNobody(dir.join("out3"))
        expectRefused(open, folder: slots, reason: "is open to others (mode 0755", out: dir.join("out3"))
        #expect(listing(slots) == before)
    }
}
