import Export
import Foundation
import ImageCore
import KilnTestSupport
import Testing

/// `OutputDirectory`: outputs appear whole, in place, never through a symlink, never over an existing file unasked.
@Suite("output placement")
struct OutputPlacementTests {
    @Test("a write creates parents, puts exactly the bytes in place and leaves no temporary file")
    func write() throws {
        let work = try TemporaryDirectory()
        let output = try OutputDirectory(path: work.join("out"))
        try output.write([1, 2, 3], to: "deep/er/a.png", replace: false)
        #expect(FileManager.default.contents(atPath: work.join("out/deep/er/a.png")) == Data([1, 2, 3]))
        #expect(output.exists("deep/er/a.png"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.stateDirectory + "/tmp").isEmpty)
    }

    @Test("an existing output is kept unless replace is asked")
    func existing() throws {
        let work = try TemporaryDirectory()
        let output = try OutputDirectory(path: work.join("out"))
        try output.write([1], to: "a.png", replace: false)
        #expect(throws: OutputError.exists) { try output.write([2], to: "a.png", replace: false) }
        #expect(FileManager.default.contents(atPath: output.url(of: "a.png")) == Data([1]))
        try output.write([3], to: "a.png", replace: true)
        #expect(FileManager.default.contents(atPath: output.url(of: "a.png")) == Data([3]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.stateDirectory + "/tmp").isEmpty)
    }

    @Test("a symlinked directory on the output path is never followed")
    func symlinks() throws {
        let work = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: work.join("elsewhere"), withIntermediateDirectories: true)
        let output = try OutputDirectory(path: work.join("out"))
        try FileManager.default.createSymbolicLink(atPath: work.join("out/link"), withDestinationPath: work.join("elsewhere"))
        #expect(throws: OutputError.symlinkInPath(work.join("out/link"))) { try output.write([1], to: "link/a.png", replace: true) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.join("elsewhere")).isEmpty)
    }

    @Test("temporary files of processes that no longer run are removed when the directory is opened")
    func staleTemporaries() throws {
        let work = try TemporaryDirectory()
        let output = try OutputDirectory(path: work.join("out"))
        // PID 0x7FFFFFF0 is far above pid_max: no such process.
        let stale = output.stateDirectory + "/tmp/2147483632-1.tmp"
        try ExportFixtures.file(at: stale, "half")
        _ = try OutputDirectory(path: work.join("out"))
        #expect(!FileManager.default.fileExists(atPath: stale))
    }

    /// A finished job's journal renamed away to be removed, by a process killed before it was (kill -9 after the
    /// `end`): removed by the next start once that process is gone; a running one's is not touched.
    @Test("a journal a killed process was removing goes at the next start")
    func journalsBeingRemoved() throws {
        let work = try TemporaryDirectory()
        let dead = work.join("out/..kiln.removed-2147483632"), live = work.join("out/..kiln.removed-1")  // pid 1 runs
        for folder in [dead, live] {
            try FileManager.default.createDirectory(atPath: folder + "/tmp", withIntermediateDirectories: true)
            try ExportFixtures.file(at: folder + "/job.json", "{}")
        }
        _ = try OutputDirectory(path: work.join("out"))
        #expect(!FileManager.default.fileExists(atPath: dead))
        #expect(FileManager.default.fileExists(atPath: live + "/job.json"))
    }

    /// In place, the temporary files a run left beside its inputs: another process's, once it is gone (a killed
    /// run's, removed by the next run); this process's own at the end of a run stopped with images in flight (an
    /// image abandoned after --grace left its file after a Ctrl-C). A live other process's are never touched.
    @Test("in place, leftovers go: a dead run's at the start, this run's own at its end")
    func inPlaceLeftovers() throws {
        let work = try TemporaryDirectory()
        let input = work.join("a.png")
        _ = FileManager.default.createFile(atPath: input, contents: Data([1]))
        let mine = work.join(".a.png.kiln-\(getpid())-7.tmp")
        let live = work.join(".a.png.kiln-1-7.tmp")  // pid 1 runs
        for path in [mine, live] { _ = FileManager.default.createFile(atPath: path, contents: Data([2])) }
        InPlaceReplacement.removeLeftovers(of: [input])
        #expect(FileManager.default.fileExists(atPath: mine) && FileManager.default.fileExists(atPath: live))
        InPlaceReplacement.removeLeftovers(of: [input], own: true)
        #expect(!FileManager.default.fileExists(atPath: mine))
        #expect(FileManager.default.fileExists(atPath: live) && FileManager.default.fileExists(atPath: input))
    }
}
