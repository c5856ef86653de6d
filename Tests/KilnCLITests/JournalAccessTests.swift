import Foundation
import KilnTestSupport
import Testing

/// A journal that exists but cannot be read (`chmod 000 OUT/.kiln`) is said to be
/// so, with the path and the reason, by `status`, `resume` and `cancel`: "holds
/// no kiln job" would send the user looking for a job that is there.
///
/// Root reads through any mode, so as root the commands run as `nobody`
/// (util-linux `setpriv`) over a folder root owns; as anyone else, the mode
/// alone denies the owner. Either way the denial is real, not simulated.
@Suite struct JournalAccessTests {
    @Test(arguments: ["status", "resume", "cancel"])
    func anUnreadableJournalIsSaidToBeUnreadableNotMissing(_ command: String) throws {
        let dir = try TemporaryDirectory()
        #expect(chmod(dir.path, 0o755) == 0, "the other user must reach OUT; only .kiln is closed")
        let out = dir.join("out")
        let made = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", out, "--keep-journal",
                             "--progress", "none"])
        try #require(made.status == 0, "\(made.stderr)")
        try #require(FileManager.default.fileExists(atPath: out + "/.kiln/job.json"))
        #expect(chmod(out + "/.kiln", 0) == 0)
        defer { chmod(out + "/.kiln", 0o755) }  // so the folder can be removed by a non-root owner

        let r = try kilnDenied([command, out])
        #expect(r.status == 1, "\(command): \(r.stdout)\n\(r.stderr)")
        #expect(r.stderr.contains("cannot read the journal \(out)/.kiln"), "\(command): \(r.stderr)")
        #expect(r.stderr.contains("Permission denied"), "\(command): \(r.stderr)")
        #expect(!r.stderr.contains("no kiln job"), "\(command): \(r.stderr)")
        if command == "status" {
            let json = try kilnDenied(["status", out, "--json"])
            #expect(json.status == 1)
            let line = try #require(Events(json.stdoutLines).named("status").first, "\(json.stdout)")
            #expect(line[string: "state"] == "unreadable" && line[string: "error"].contains("Permission denied"),
                    "\(json.stdout)")
        }
    }

    /// `kiln status --json` where no job is (never started, or finished clean and its journal removed) prints an
    /// object too, `state` "none": it printed nothing on stdout, and `jq .state` read an empty input.
    @Test func statusJSONWithoutAJobSaysNone() throws {
        let dir = try TemporaryDirectory()
        let out = dir.join("out")
        let made = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", out, "--progress", "none"])
        try #require(made.status == 0, "\(made.stderr)")
        for folder in [out, dir.join("never")] {
            let r = try kiln(["status", folder, "--json"])
            #expect(r.status == 1)
            let line = try #require(Events(r.stdoutLines).named("status").first, "\(r.stdout)")
            #expect(line[string: "state"] == "none", "\(r.stdout)")
            #expect(r.stderr.contains(line[string: "error"]), "\(r.stderr)")
        }
    }

    /// A stopped job in a folder its user may not write to is an unusable output directory, exit 64, as an export
    /// into one is: a resume there exited 69, which scripts read as another process holding the job.
    @Test func aResumeWhereItCannotWriteIsAUsageError() throws {
        let dir = try TemporaryDirectory()
        #expect(chmod(dir.path, 0o755) == 0)
        let out = dir.join("out")
        let stopped = try kiln(["export", Paths.sampleData, "--output", out, "--jobs", "1", "--stall-timeout", "1",
                                "--progress", "none"], environment: ["KILN_TEST_STALL_AFTER": "1"], timeout: .seconds(60))
        try #require(stopped.status == 75, "\(stopped.stderr)")
        #expect(chmod(out, 0o555) == 0 && chmod(out + "/.kiln", 0o555) == 0)
        defer {
            chmod(out, 0o755)
            chmod(out + "/.kiln", 0o755)
        }
        let r = try kilnDenied(["resume", out])
        #expect(r.status == 64, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stderr.contains("cannot use the journal \(out)/.kiln"), "\(r.stderr)")
    }
}
