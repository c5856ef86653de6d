@testable import Export
import Foundation
import KilnTestSupport
import Testing

/// What a job that stops for its file system or its output folder says (``StoppingFailure``): the remedy fits the
/// failure.
@Suite struct StoppingFailureTests {
    /// Before: a read-only file system was "left for `kiln resume` once there is room", which no resume there could follow.
    @Test func theRemedyFitsTheFailure() throws {
        let work = try TemporaryDirectory()
        let output = try OutputDirectory(path: work.join("out"))
        let said = { (code: Int32) in StoppingFailure.reason(OutputError.system("write", code), in: output) ?? "" }
        let out = work.join("out")
        #expect(said(ENOSPC).contains("is full") && said(ENOSPC).hasSuffix("`kiln resume \(out)` once there is room"))
        #expect(said(EDQUOT).contains("is over its quota") && said(EDQUOT).hasSuffix("once there is room"))
        #expect(said(EROFS).contains("is read-only") && said(EROFS).hasSuffix("`kiln resume \(out)` once it is writable"))
        #expect(StoppingFailure.reason(OutputError.system("write", EIO), in: output) == nil)
    }

    /// Before: the folder removed while the job ran failed every image left alone ("cannot create a temporary file").
    @Test func aRemovedOutputFolderStopsTheJob() throws {
        let work = try TemporaryDirectory()
        let output = try OutputDirectory(path: work.join("out"))
        #expect(output.removedFolder == nil)
        try FileManager.default.removeItem(atPath: work.join("out"))
        let said = StoppingFailure.reason(OutputError.system("cannot create a temporary file", ENOENT), in: output) ?? ""
        #expect(said.hasPrefix("stopped: \(work.join("out")) was removed while the job ran"), "\(said)")
        #expect(said.hasSuffix("export again to make the images not written"), "\(said)")
    }
}
