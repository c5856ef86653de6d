import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// Outputs are never silently stale: an existing output made by other options
/// (or changed since) is kept and reported as a conflict, exit 1, unless
/// `--overwrite`; identical work is skipped. `.kiln/` goes after a clean run.
@Suite(.serialized) struct StaleOutputTests {
    private func width(_ path: String) throws -> Int { try PNGDecoder.readHeader(contentsOf: path).width }

    @Test func anInterruptedRunsOutputsConflictWithOtherOptionsUntilOverwrite() throws {
        let out = try TemporaryDirectory()
        // An interrupted run at 400×400: three outputs, recorded in the journal.
        let first = try startKiln(["export", LargeImages.directory, "--output", out.path, "--progress", "json",
                                   "--jobs", "1", "--resize", "400x400", "--stall-timeout", "600"],
                                  environment: ["KILN_TEST_STALL_AFTER": "3"])
        #expect(first.waitUntil { LargeImages.outputs(in: out.path).count == 3 })
        first.send(SIGINT)
        #expect(try first.wait(timeout: .seconds(60)).status == 75)

        let other = try kiln(["export", LargeImages.directory, "--output", out.path, "--progress", "json",
                              "--resize", "300x300"])
        #expect(other.status == 1, "\(other.stderr)")
        let conflicts = Events(other.stdoutLines).files("conflict")
        #expect(conflicts.count == 3)
        #expect(conflicts.allSatisfy { $0[string: "error"].contains("other options") }, "\(conflicts)")
        #expect(Events(other.stdoutLines).files("written").count == LargeImages.count - 3)
        let kept = conflicts.map { $0[string: "output"] }
        #expect(try kept.allSatisfy { try width($0) == 400 }, "conflicting outputs are kept as they were")

        let forced = try kiln(["export", LargeImages.directory, "--output", out.path, "--progress", "json",
                               "--resize", "300x300", "--overwrite"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try LargeImages.outputs(in: out.path).allSatisfy { try width(out.join($0)) == 300 })
    }

    /// The resume of a run that kept outputs as conflicts (made with another `--level`, which leaves the pixels as
    /// they are) gives the same verdict: it compared the pixels alone, called them "skipped", exited 0 and removed
    /// the journal, where the export had said "made with other options". The conflict's record keeps what made it.
    @Test func aResumeGivesTheExportsVerdictOnAConflict() throws {
        let out = try TemporaryDirectory()
        #expect(try kiln(["export", Paths.sampleData, "--output", out.path, "--level", "9", "--keep-journal",
                          "--progress", "none"]).status == 0)
        let other = try kiln(["export", Paths.sampleData, "--output", out.path, "--level", "8", "--progress", "json"])
        let count = Paths.pngs(in: Paths.sampleData).count
        #expect(other.status == 1 && Events(other.stdoutLines).files("conflict").count == count, "\(other.stdout)")
        let resumed = try kiln(["resume", out.path, "--progress", "json"])
        #expect(resumed.status == 1, "\(resumed.stdout)")
        let conflicts = Events(resumed.stdoutLines).files("conflict")
        #expect(conflicts.count == count && conflicts.allSatisfy { $0[string: "error"].contains("other options") },
                "\(resumed.stdout)")
        #expect(FileManager.default.fileExists(atPath: out.join(".kiln/job.json")), "the job is not over")
        // Its input changed since, a resume still keeps the output as it is: the conflict's record says what made
        // the kept file, which is not a write of this job's to redo.
        let name = try #require(Paths.pngs(in: Paths.sampleData).first)
        let input = try TemporaryDirectory()
        for file in Paths.pngs(in: Paths.sampleData) {
            try FileManager.default.copyItem(atPath: Paths.sampleData + "/" + file, toPath: input.join(file))
        }
        let copied = try TemporaryDirectory()
        #expect(try kiln(["export", input.path, "--output", copied.path, "--level", "9", "--keep-journal", "--progress", "none"])
                    .status == 0)
        #expect(try kiln(["export", input.path, "--output", copied.path, "--level", "8", "--progress", "none"]).status == 1)
        let before = try Data(contentsOf: URL(fileURLWithPath: copied.join(name)))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: input.join(name))
        let touched = try kiln(["resume", copied.path, "--progress", "json"])
        #expect(touched.status == 1, "\(touched.stdout)")
        let event = Events(touched.stdoutLines).named("file").first { $0[string: "output"].hasSuffix("/" + name) }
        #expect(event?[string: "status"] == "conflict", "it was written over: \(String(describing: event))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: copied.join(name))) == before)
    }

    /// A resume redoes an output whose input was rewritten since to the same size under the same modification time
    /// (an editor or a sync tool that keeps times): its change time moved on. Before, the output of the old version
    /// stayed, counted as done earlier, with no word.
    @Test func aResumeRedoesAnOutputWhoseInputWasRewrittenUnderItsOwnTime() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        // Stored (uncompressed) PNGs: another value of one pixel is a file of the very same size.
        func image(_ value: UInt8) -> Data {
            Data(PNGBytes.stored(width: 8, colorType: 0, rows: (0..<8).map { y in (0..<8).map { x in x + y == 0 ? value : 90 } }))
        }
        for name in ["a", "b", "c", "d"] { try image(10).write(to: URL(fileURLWithPath: dir.join("in/\(name).png"))) }
        let stopped = try kiln(["export", dir.join("in"), "--output", dir.join("out"), "--progress", "json", "--jobs", "1",
                                "--stall-timeout", "1", "--grace", "0"], environment: ["KILN_TEST_STALL_AFTER": "2"])
        #expect(stopped.status == 75, "\(stopped.stdout)")
        let written = Events(stopped.stdoutLines).files("written").map { $0[string: "input"] }
        let first = try #require(written.first, "\(stopped.stdout)")
        // Rewritten in place (the same inode), its size and modification time as they were.
        var info = stat()
        #expect(stat(first, &info) == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: first))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: first))
        try handle.write(contentsOf: image(200))
        try handle.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: first)).count == before.count)
        var times = [info.st_atim, info.st_mtim]
        #expect(utimensat(AT_FDCWD, first, &times, 0) == 0)
        let resumed = try kiln(["resume", dir.join("out"), "--progress", "json"])
        #expect(resumed.status == 0, "\(resumed.stdout)")
        let redone = Events(resumed.stdoutLines).files("written").map { $0[string: "input"] }
        #expect(redone.contains(first), "\(resumed.stdout)")
        let output = dir.join("out/" + (first as NSString).lastPathComponent)
        #expect(try PNGDecoder.decode(contentsOf: output).bytes.first == 200, "the output is of the input as it is now")
    }

    @Test func theJournalGoesAfterACleanRunUnlessKeptAndIdenticalWorkIsStillSkipped() throws {
        let out = try TemporaryDirectory()
        let args = ["export", Paths.sampleData, "--output", out.path, "--progress", "json", "--resize", "16x16"]
        #expect(try kiln(args).status == 0)
        #expect(!FileManager.default.fileExists(atPath: out.join(".kiln")), "a published folder holds only its outputs")
        let again = try kiln(args)
        #expect(again.status == 0)
        #expect(Events(again.stdoutLines).files("skipped").count == Paths.pngs(in: Paths.sampleData).count)
        let other = try kiln(["export", Paths.sampleData, "--output", out.path, "--progress", "json",
                              "--resize", "12x12"])
        #expect(other.status == 1)
        #expect(!Events(other.stdoutLines).files("conflict").isEmpty)

        let kept = try TemporaryDirectory()
        #expect(try kiln(["export", Paths.sampleData, "--output", kept.path, "--progress", "none",
                          "--keep-journal"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: kept.join(".kiln/job.json")))
    }
}
