@testable import Export
import Foundation
import Testing

/// What tells an input changed while it was read (``InputFile/isUnchanged()``).
@Suite struct InputFileTests {
    /// Before: a link of the file made or taken away (in place, each hard link is replaced on its own, by a rename
    /// over it) moved its change time, and the other links being read failed as "changed while being read".
    @Test func aLinkMadeOrTakenIsNoChangeAndAWriteIs() throws {
        let dir = NSTemporaryDirectory() + "kiln-input-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/a.png", other = dir + "/b.png"
        try Data([1, 2, 3, 4]).write(to: URL(fileURLWithPath: path))
        #expect(link(path, other) == 0)
        let file = try #require(InputFile(path: path))
        usleep(20_000)  // a later change time (a file system keeping nanoseconds, as /tmp here; of coarser ones it would not tell)
        #expect(unlink(other) == 0)
        #expect(file.isUnchanged(), "a link taken away")
        #expect(link(path, other) == 0 && link(path, dir + "/c.png") == 0)
        #expect(file.isUnchanged(), "links made")
        // Rewritten in place with the same size and modification time: its change time alone says so (its links as
        // they were when it was read: a write with its time put back beside a link taken would pass).
        let again = try #require(InputFile(path: path))
        usleep(20_000)
        var times = stat()
        #expect(stat(path, &times) == 0)
        let fd = open(path, O_WRONLY)
        #expect(pwrite(fd, [9], 1, 0) == 1)
        var kept = [times.st_atim, times.st_mtim]
        #expect(futimens(fd, &kept) == 0)
        close(fd)
        #expect(!again.isUnchanged(), "a write, its time put back")
    }
}
