import Foundation
import KilnTestSupport
import Testing

/// A running job holds its output folder, `.kiln` and `.kiln/tmp` by
/// descriptor: a folder renamed mid-run keeps receiving the job's outputs where
/// it now is, and a symlink put in its place (or in place of `.kiln/tmp`) is
/// never followed, written through or cleaned through.
@Suite struct HeldFolderTests {
    /// Every path under `root` with its content (files) or "d" (folders).
    private func tree(_ root: String) -> [String: Data] {
        var listing: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            listing[relative] = FileManager.default.contents(atPath: root + "/" + relative) ?? Data("d".utf8)
        }
        return listing
    }

    /// A folder that looks like another job's output: a `.kiln` with a journal and a leftover temporary file.
    private func decoy(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path + "/.kiln/tmp", withIntermediateDirectories: true)
        try Data("someone else's journal".utf8).write(to: URL(fileURLWithPath: path + "/.kiln/job.json"))
        try Data("not kiln's".utf8).write(to: URL(fileURLWithPath: path + "/.kiln/tmp/1-1.tmp"))
        try Data("a photo".utf8).write(to: URL(fileURLWithPath: path + "/photo00.png"))
    }

    @Test func aFolderRenamedAndReplacedByASymlinkMidRunKeepsReceivingTheJob() throws {
        let dir = try TemporaryDirectory()
        let out = dir.join("out"), moved = dir.join("moved"), target = dir.join("target")
        try decoy(target)
        let before = tree(target)
        // The job stops taking images after 3 until the release file exists: the swap happens at a known point.
        let child = try startKiln(["export", LargeImages.directory, "--output", out, "--progress", "json", "--jobs", "1"],
                                  environment: ["KILN_TEST_STALL_AFTER": "3", "KILN_TEST_STALL_RELEASE": dir.join("release")])
        #expect(child.waitUntil { child.stdoutSoFar.components(separatedBy: "\"status\":\"written\"").count == 4 })
        try FileManager.default.moveItem(atPath: out, toPath: moved)
        try FileManager.default.createSymbolicLink(atPath: out, withDestinationPath: target)
        _ = FileManager.default.createFile(atPath: dir.join("release"), contents: Data())
        let r = try child.wait()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(tree(target) == before, "nothing written or deleted under the symlink's target")
        #expect(LargeImages.matchesReference(moved) == [], "every output is where the folder now is")
        #expect(!FileManager.default.fileExists(atPath: moved + "/.kiln"), "the job's own journal was removed after success")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: out)) == target, "the symlink is left as it is")
    }

    @Test func aSymlinkedJournalFolderIsNeverFollowed() throws {
        let dir = try TemporaryDirectory()
        let out = dir.join("out"), target = dir.join("target")
        try decoy(target)
        let before = tree(target)
        // A symlinked .kiln/tmp: the leftover cleanup at start must not reach through it.
        try FileManager.default.createDirectory(atPath: out + "/.kiln", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: out + "/.kiln/tmp", withDestinationPath: target + "/.kiln/tmp")
        var r = try kiln(["export", Paths.sampleData, "--output", out, "--progress", "none"])
        #expect(r.status == 64, "refused: \(r.stderr)")
        #expect(r.stderr.contains("symlink"), "\(r.stderr)")
        #expect(tree(target) == before)
        // A symlinked .kiln likewise.
        try FileManager.default.removeItem(atPath: out + "/.kiln")
        try FileManager.default.createSymbolicLink(atPath: out + "/.kiln", withDestinationPath: target + "/.kiln")
        r = try kiln(["export", Paths.sampleData, "--output", out, "--progress", "none"])
        #expect(r.status == 64, "refused: \(r.stderr)")
        #expect(tree(target) == before)
    }
}
