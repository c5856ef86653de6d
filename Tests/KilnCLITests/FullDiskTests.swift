import Foundation
import KilnTestSupport
import Testing

/// A full disk under the outputs and the journal stops the job: exit 75, one
/// clear message, a summary that agrees with the journal, and a resume, once
/// there is room, that gives exactly what an uninterrupted run gives.
///
/// The disk is a small tmpfs mounted for the test (root only; CI runs as root).
@Suite(.serialized) struct FullDiskTests {
    /// Whether this process may mount a file system (root with CAP_SYS_ADMIN).
    static let canMount: Bool = {
        guard let dir = try? TemporaryDirectory() else { return false }
        let r = try? ProcessRunner.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", dir.path])
        guard r?.status == 0 else { return false }
        _ = try? ProcessRunner.run("/bin/umount", [dir.path])
        return true
    }()

    /// Fills the file system holding `path` to the last byte with one file.
    ///
    /// Opened close-on-exec: tests run in parallel in this process, and a kiln another test starts
    /// while the file is open would inherit it and keep its blocks allocated after it is removed
    /// (once, under CI's load, the resume found the disk still full).
    private func fill(_ path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var chunk = 1 << 20
        let zeros = [UInt8](repeating: 0, count: chunk)
        while chunk > 0 {
            if write(fd, zeros, chunk) < 0 { chunk /= 2 }
        }
    }

    /// A tmpfs of `size` ("4m") mounted at `dir`/disk; its path. The caller unmounts it (`defer`).
    private func mountSmallDisk(in dir: TemporaryDirectory, size: String) throws -> String {
        let disk = dir.join("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: false)
        #expect(try ProcessRunner.run("/bin/mount", ["-t", "tmpfs", "-o", "size=" + size, "tmpfs", disk]).status == 0)
        return disk
    }

    /// What fills the file system at `path`, for a failure's message: `df` and every file's size.
    private func usage(of path: String) -> String {
        let df = (try? ProcessRunner.run("/bin/df", ["-k", path]))?.stdout ?? ""
        let files = (try? ProcessRunner.run("/usr/bin/find", [path, "-printf", "%s %p\\n"]))?.stdout ?? ""
        return df + files
    }

    @Test(.enabled(if: canMount, "mounting a small tmpfs needs root (CAP_SYS_ADMIN)"))
    func aFullDiskStopsTheJobResumablyAndTheSummaryAgreesWithTheJournal() throws {
        let dir = try TemporaryDirectory()
        let disk = try mountSmallDisk(in: dir, size: "64m")
        defer { _ = try? ProcessRunner.run("/bin/umount", ["-l", disk]) }
        let out = disk + "/out"
        // After 3 images the job waits for the release file; the disk is filled meanwhile.
        let child = try startKiln(["export", LargeImages.directory, "--output", out, "--progress", "json", "--jobs", "1"],
                                  environment: ["KILN_TEST_STALL_AFTER": "3", "KILN_TEST_STALL_RELEASE": dir.join("release")])
        #expect(child.waitUntil { child.stdoutSoFar.components(separatedBy: "\"status\":\"written\"").count == 4 })
        fill(disk + "/filler")
        _ = FileManager.default.createFile(atPath: dir.join("release"), contents: Data())
        let r = try child.wait()
        #expect(r.status == 75, "stopped, resumable: \(r.stderr)")
        let warnings = Events(r.stdoutLines).named("warning").map { $0[string: "message"] }
        #expect(warnings.filter { $0.contains("No space left on device") }.count == 1, "one clear reason, once: \(warnings)")
        #expect(warnings.contains { $0.contains("is full") && $0.contains("kiln resume") }, "\(warnings)")

        // The summary's counts are the journal's.
        let end = try #require(Events(r.stdoutLines).named("end").last)
        let journal = try String(contentsOfFile: out + "/.kiln/finished.ndjson", encoding: .utf8)
        let records = journal.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        for status in ["written", "skipped", "failed"] {
            #expect(end[status] as? Int == records.filter { $0[string: "status"] == status }.count, "\(status): \(end)")
        }
        #expect(end["failed"] as? Int == 0, "no image is failed for the disk's sake")
        let status = try kiln(["status", out])
        #expect(status.stdout.contains("is full") && status.stdout.contains("kiln resume"), "\(status.stdout)")

        try FileManager.default.removeItem(atPath: disk + "/filler")
        let resumed = try kiln(["resume", out, "--progress", "none"])
        #expect(resumed.status == 0, "\(resumed.stderr)\n\(usage(of: disk))")
        #expect(LargeImages.matchesReference(out) == [], "outputs identical to an uninterrupted run")
    }

    /// Whether this process may make a file immutable (`chattr +i`: root with CAP_LINUX_IMMUTABLE, on a file system
    /// that takes the flag).
    static let canMakeImmutable: Bool = {
        guard let dir = try? TemporaryDirectory() else { return false }
        _ = FileManager.default.createFile(atPath: dir.join("f"), contents: Data())
        guard (try? ProcessRunner.run("/usr/bin/chattr", ["+i", dir.join("f")]))?.status == 0 else { return false }
        _ = try? ProcessRunner.run("/usr/bin/chattr", ["-i", dir.join("f")])
        return true
    }()

    /// A journal that takes no record (made immutable) stops the job as a full disk does, exit 75, the summary the
    /// journal's. Before, the resume ran every image left to its end, its output in place, and failed each one ("could
    /// not be recorded"), while `kiln status` counted none of them.
    @Test(.enabled(if: canMakeImmutable, "chattr +i needs root (CAP_LINUX_IMMUTABLE)"))
    func aJournalThatCannotBeWrittenStopsTheJobResumably() throws {
        let dir = try TemporaryDirectory()
        let out = dir.join("out"), records = dir.join("out/.kiln/finished.ndjson")
        let first = try kiln(["export", LargeImages.directory, "--output", out, "--progress", "json", "--jobs", "1",
                              "--stall-timeout", "1", "--grace", "0"], environment: ["KILN_TEST_STALL_AFTER": "2"])
        #expect(first.status == 75, "\(first.stderr)")
        #expect(try ProcessRunner.run("/usr/bin/chattr", ["+i", records]).status == 0)
        defer { _ = try? ProcessRunner.run("/usr/bin/chattr", ["-i", records]) }
        let before = try String(contentsOfFile: records, encoding: .utf8)
        let r = try kiln(["resume", out, "--progress", "json"])
        #expect(r.status == 75, "stopped, resumable: \(r.stdout)")
        let warnings = Events(r.stdoutLines).named("warning").map { $0[string: "message"] }
        #expect(warnings.contains { $0.contains("the job's journal cannot be written") && $0.contains("kiln resume") }, "\(warnings)")
        let end = try #require(Events(r.stdoutLines).named("end").last)
        #expect(end["failed"] as? Int == 0 && Events(r.stdoutLines).files("failed").isEmpty, "no image failed for it: \(end)")
        #expect(try String(contentsOfFile: records, encoding: .utf8) == before)

        #expect(try ProcessRunner.run("/usr/bin/chattr", ["-i", records]).status == 0)
        let resumed = try kiln(["resume", out, "--progress", "none"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(LargeImages.matchesReference(out) == [], "outputs identical to an uninterrupted run")
    }

    /// In place, the outputs are written beside the inputs: a full disk there was blamed on the journal's folder
    /// ("the file system of . is full"), which had room. Now the inputs' folder is named.
    @Test(.enabled(if: canMount, "mounting a small tmpfs needs root (CAP_SYS_ADMIN)"))
    func inPlaceAFullDiskNamesTheInputsFolder() throws {
        let dir = try TemporaryDirectory()
        let disk = try mountSmallDisk(in: dir, size: "4m")
        defer { _ = try? ProcessRunner.run("/bin/umount", ["-l", disk]) }
        try FileManager.default.createDirectory(atPath: disk + "/in", withIntermediateDirectories: false)
        for name in ["rgb8.png", "rgba8.png"] {
            try FileManager.default.copyItem(atPath: Paths.sampleData + "/" + name, toPath: disk + "/in/" + name)
        }
        let before = try FileManager.default.contentsOfDirectory(atPath: disk + "/in").sorted().map {
            try Data(contentsOf: URL(fileURLWithPath: disk + "/in/" + $0))
        }
        fill(disk + "/filler")
        let r = try startKiln(["export", disk + "/in", "--in-place", "--brightness", "0.1", "--progress", "json"],
                              directory: dir.path).wait()
        #expect(r.status == 75, "\(r.stderr)")
        let warnings = Events(r.stdoutLines).named("warning").map { $0[string: "message"] }
        #expect(warnings.contains { $0.contains("the file system of ") && $0.contains("/disk/in is full") && $0.contains("kiln resume") },
                "\(warnings) \(r.stderr)")
        let after = try FileManager.default.contentsOfDirectory(atPath: disk + "/in").sorted().map {
            try Data(contentsOf: URL(fileURLWithPath: disk + "/in/" + $0))
        }
        #expect(after == before, "the inputs are kept as they were, and no temporary file is left")
        try FileManager.default.removeItem(atPath: disk + "/filler")
        let resumed = try startKiln(["resume", ".", "--progress", "none"], directory: dir.path).wait()
        #expect(resumed.status == 0, "\(resumed.stderr)\n\(usage(of: disk))")
    }

    /// A disk already full when a job starts: it exited 69 saying "cannot use the journal", and left a journal
    /// folder without a job, of which `kiln resume` said "holds no kiln job". Now it says the disk is full and that
    /// nothing was started, and leaves no journal folder, nor the output folder it made (left empty before).
    @Test(.enabled(if: canMount, "mounting a small tmpfs needs root (CAP_SYS_ADMIN)"))
    func aDiskFullAtTheStartStartsNothing() throws {
        let dir = try TemporaryDirectory()
        let disk = try mountSmallDisk(in: dir, size: "1m")
        defer { _ = try? ProcessRunner.run("/bin/umount", ["-l", disk]) }
        fill(disk + "/filler")
        let r = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", disk + "/out", "--progress", "none"])
        #expect(r.status == 69)
        #expect(r.stderr.contains("is full") && r.stderr.contains("nothing was started"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: disk + "/out"), "no journal without a job, nor the empty folder made for it")
        let nested = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", disk + "/a/b/c", "--progress", "none"])
        #expect(nested.status == 69, "\(nested.stderr)")
        #expect(!FileManager.default.fileExists(atPath: disk + "/a"), "nor the parents made for it")
        try FileManager.default.removeItem(atPath: disk + "/filler")
        let again = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", disk + "/out", "--progress", "none"])
        #expect(again.status == 0, "\(again.stderr)")
        // A journal folder holding more than a start makes (here, a shard's record) is never removed.
        try FileManager.default.createDirectory(atPath: disk + "/other/.kiln/shards/0-of-2", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: disk + "/other/.kiln/shards/0-of-2/job.json", contents: Data("{}".utf8))
        fill(disk + "/filler")
        let other = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", disk + "/other", "--progress", "none"])
        #expect(other.status == 69, "\(other.stderr)")
        // An empty folder that was there before stays.
        try FileManager.default.removeItem(atPath: disk + "/filler")
        try FileManager.default.createDirectory(atPath: disk + "/empty", withIntermediateDirectories: false)
        fill(disk + "/filler")
        let empty = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", disk + "/empty", "--progress", "none"])
        #expect(empty.status == 69, "\(empty.stderr)")
        #expect(FileManager.default.fileExists(atPath: disk + "/empty"), "the user's empty folder stays")
        #expect(FileManager.default.fileExists(atPath: disk + "/other/.kiln/shards/0-of-2/job.json"), "the shard's journal stays")
    }

    /// The output folder removed while the job runs: every image after would fail alike (a 156-image run said 112
    /// failures, each "cannot create a temporary file"), and the journal went with the folder. The job stops at the
    /// first with one warning naming the folder, exit 75.
    @Test func anOutputFolderRemovedWhileTheJobRunsStopsIt() throws {
        let dir = try TemporaryDirectory()
        let out = dir.join("out")
        let child = try startKiln(["export", LargeImages.directory, "--output", out, "--progress", "json", "--jobs", "1",
                                   "--level", "9"])
        #expect(child.waitUntil { child.stdoutSoFar.contains("\"event\":\"file\"") })
        try FileManager.default.removeItem(atPath: out)
        let r = try child.wait(timeout: .seconds(120))
        #expect(r.status == 75, "\(r.stderr)")
        let warnings = Events(r.stdoutLines).named("warning").map { $0[string: "message"] }
        // (The folder goes from its leaves up: the first failure may meet only its .kiln/tmp gone.)
        #expect(warnings.contains { $0.hasPrefix("stopped: \(out)") && $0.contains(" was removed while the job ran") },
                "\(warnings)")
        // At most the image being placed as the folder went fails; none after it.
        #expect(Events(r.stdoutLines).files("failed").count <= 1, "\(r.stdout)")
        #expect(Events(r.stdoutLines).all.count { $0["event"] as? String == "file" } < LargeImages.count, "the job stopped")
    }
}
