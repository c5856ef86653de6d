import Foundation
import KilnTestSupport
import Testing

/// `kiln resume` treats `.kiln/job.json` as untrusted input: whatever it says,
/// the job writes only inside the folder named on the command line. A copied
/// or moved output folder resumes where it now is; a journal that would write
/// elsewhere is refused with nothing written. Each test lists the whole tree
/// around the folder (every path, its type, size and content) before and after.
@Suite struct UntrustedJournalTests {
    /// Every entry under `root` (journal included) with what it holds: "d" for a
    /// directory, "l -> target" for a symlink, the CRC-free content for a file.
    private func tree(_ root: String) -> [String: String] {
        var listing: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            let path = root + "/" + relative
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: listing[relative] = "d"
            case S_IFLNK: listing[relative] = "l -> " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?")
            default:
                let data = FileManager.default.contents(atPath: path) ?? Data()
                listing[relative] = "f \(data.count) \(data.hashValue)"
            }
        }
        return listing
    }

    /// A finished job in `dir/out` kept with its journal, with two of its outputs removed,
    /// so a resume has work to do (it redoes the writes the disk lost).
    private func jobWithWorkLeft(in dir: TemporaryDirectory) throws -> [String] {
        let r = try kiln(["export", Paths.sampleData, "--output", dir.join("out"), "--progress", "none",
                          "--keep-journal", "--resize", "16x16"])
        #expect(r.status == 0, "\(r.stderr)")
        let removed = Array(Paths.pngs(in: dir.join("out")).prefix(2))
        #expect(removed.count == 2)
        for name in removed { try FileManager.default.removeItem(atPath: dir.join("out/" + name)) }
        return removed
    }

    /// The job's state as `kiln status --json` reports it.
    private func state(_ folder: String) throws -> String? {
        let r = try kiln(["status", folder, "--json"])
        return (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["state"] as? String
    }

    /// Rewrites `folder/.kiln/job.json` through `edit`.
    private func editJob(_ folder: String, _ edit: (inout [String: Any]) -> Void) throws {
        let path = folder + "/.kiln/job.json"
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
                                  as? [String: Any])
        edit(&object)
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
    }

    /// A named pipe in a journal file's place never holds a command: opened to be read, it held `kiln status`,
    /// `kiln resume` and `kiln export` for good, deaf to SIGTERM. A resume refuses or stops, naming it; a new export
    /// replaces the journal, as it replaces any. (The wait here is only a bound on a hang: each command is a
    /// moment's work.)
    @Test(arguments: ["finished.ndjson", "job.json"])
    func aNamedPipeInTheJournalIsRefusedAtOnce(_ name: String) throws {
        let dir = try TemporaryDirectory()
        _ = try jobWithWorkLeft(in: dir)
        let file = dir.join("out/.kiln/" + name)
        try FileManager.default.removeItem(atPath: file)
        #expect(mkfifo(file, 0o644) == 0)
        for command in [["status", dir.join("out")], ["resume", dir.join("out"), "--progress", "none"],
                        ["export", Paths.sampleData, "--output", dir.join("out"), "--resize", "16x16", "--progress", "none"]] {
            let r = try startKiln(command).wait(timeout: .seconds(120))
            #expect(r.status != 137, "\(command[0]) hung: \(r.stderr)")
            switch command[0] {
            case "resume": #expect([1, 75].contains(r.status) && r.stderr.contains(file) && r.stderr.contains("named pipe"), "\(r.stderr)")
            case "export": #expect(r.status == 0, "\(r.stderr)")
            default: #expect(r.status == 0 || r.stderr.contains(file) && r.stderr.contains("named pipe"), "\(r.stderr)")
            }
        }
    }

    @Test func aCopiedOutputFolderResumesWhereItNowIs() throws {
        let dir = try TemporaryDirectory()
        let removed = try jobWithWorkLeft(in: dir)
        #expect(try ProcessRunner.run("/bin/cp", ["-a", dir.join("out"), dir.join("copy")]).status == 0)
        let original = tree(dir.join("out"))
        let r = try kiln(["resume", dir.join("copy"), "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Events(r.stdoutLines).files("written").count == removed.count)
        #expect(tree(dir.join("out")) == original, "the original folder is untouched, its journal included")
        for name in removed { #expect(FileManager.default.fileExists(atPath: dir.join("copy/" + name))) }
        #expect(try state(dir.join("copy")) == "finished")
    }

    @Test func aMovedOutputFolderResumesWhereItNowIsAndTheOldPathStaysAbsent() throws {
        let dir = try TemporaryDirectory()
        let removed = try jobWithWorkLeft(in: dir)
        try FileManager.default.moveItem(atPath: dir.join("out"), toPath: dir.join("moved"))
        let r = try kiln(["resume", dir.join("moved"), "--progress", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.join("out")), "the old path is not recreated")
        for name in removed { #expect(FileManager.default.fileExists(atPath: dir.join("moved/" + name))) }
        #expect(try state(dir.join("moved")) == "finished", "the moved job is not left stopped")
    }

    @Test func aRecordedOutputDirectoryElsewhereIsNeverWritten() throws {
        let dir = try TemporaryDirectory()
        let removed = try jobWithWorkLeft(in: dir)
        try FileManager.default.createDirectory(atPath: dir.join("elsewhere"), withIntermediateDirectories: false)
        try editJob(dir.join("out")) { job in
            var options = job["options"] as! [String: Any]
            options["outputDirectory"] = dir.join("elsewhere")
            job["options"] = options
        }
        let r = try kiln(["resume", dir.join("out"), "--progress", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(tree(dir.join("elsewhere")).isEmpty, "nothing written where the journal pointed")
        for name in removed { #expect(FileManager.default.fileExists(atPath: dir.join("out/" + name))) }
    }

    @Test(arguments: ["../escaped.png", "/ABSOLUTE/escaped.png", "sub/../../escaped.png", ".kiln/job.json", "a//b.png"])
    func anItemOutputThatLeavesTheFolderIsRefusedWithNothingWritten(output: String) throws {
        let dir = try TemporaryDirectory()
        _ = try jobWithWorkLeft(in: dir)
        let target = output.replacingOccurrences(of: "/ABSOLUTE", with: dir.join("abs"))
        try FileManager.default.createDirectory(atPath: dir.join("abs"), withIntermediateDirectories: false)
        try "a text file".write(toFile: dir.join("escaped.png"), atomically: false, encoding: .utf8)
        try editJob(dir.join("out")) { job in
            var items = job["items"] as! [[String: Any]]
            items[0]["output"] = target
            job["items"] = items
        }
        let before = tree(dir.path)
        let r = try kiln(["resume", dir.join("out"), "--progress", "none"])
        #expect(r.status == 1, "refused: \(r.stderr)")
        #expect(r.stderr.contains("items[0].output"), "the field is named: \(r.stderr)")
        #expect(tree(dir.path) == before, "nothing written, moved or removed anywhere in the tree")
    }

    @Test func anInPlaceJournalCopiedElsewhereIsRefused() throws {
        let dir = try TemporaryDirectory()
        let job = dir.join("job")
        try FileManager.default.createDirectory(atPath: job + "/in", withIntermediateDirectories: true)
        for name in Paths.pngs(in: Paths.sampleData).prefix(3) {
            try FileManager.default.copyItem(atPath: Paths.sampleData + "/" + name, toPath: job + "/in/" + name)
        }
        let r = try startKiln(["export", "--in-place", "in", "--progress", "none", "--keep-journal", "--brightness", "0.1"],
                              directory: job).wait()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try ProcessRunner.run("/bin/cp", ["-a", job, dir.join("copy")]).status == 0)
        let before = tree(dir.path)
        let resumed = try kiln(["resume", dir.join("copy"), "--progress", "none"])
        #expect(resumed.status == 1, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("in-place job started in"), "\(resumed.stderr)")
        #expect(tree(dir.path) == before, "neither the original inputs nor the copy are touched")
    }

    @Test func aJournalOfAnotherVersionOrWithAControlCharacterIsRefused() throws {
        let dir = try TemporaryDirectory()
        _ = try jobWithWorkLeft(in: dir)
        try editJob(dir.join("out")) { $0["version"] = 7 }
        var r = try kiln(["resume", dir.join("out"), "--progress", "none"])
        #expect(r.status == 1 && r.stderr.contains("version 7"), "\(r.stderr)")
        try editJob(dir.join("out")) { job in
            job["version"] = 1
            var items = job["items"] as! [[String: Any]]
            items[1]["input"] = "a\u{0}b.png"
            job["items"] = items
        }
        r = try kiln(["resume", dir.join("out"), "--progress", "none"])
        #expect(r.status == 1 && r.stderr.contains("items[1].input"), "\(r.stderr)")
    }
}
