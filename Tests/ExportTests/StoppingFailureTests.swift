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
        let missing = OutputError.system("cannot create a temporary file", ENOENT)
        #expect(StoppingFailure.reason(missing, in: output) == nil, "nothing removed yet")
        // Only the staging folder: the journal stands, a resume goes on.
        try FileManager.default.removeItem(atPath: work.join("out/.kiln/tmp"))
        let staging = StoppingFailure.reason(missing, in: output) ?? ""
        #expect(staging.hasPrefix("stopped: \(work.join("out/.kiln/tmp")) was removed while the job ran"), "\(staging)")
        #expect(staging.hasSuffix("left for `kiln resume \(work.join("out"))`"), "\(staging)")
        // Another failure than a missing name is not taken for a removal.
        #expect(StoppingFailure.reason(OutputError.system("cannot place", EEXIST), in: output) == nil)
        try FileManager.default.removeItem(atPath: work.join("out"))
        let said = StoppingFailure.reason(missing, in: output) ?? ""
        #expect(said.hasPrefix("stopped: \(work.join("out")) was removed while the job ran"), "\(said)")
        #expect(said.hasSuffix("export again to make the images not written"), "\(said)")
    }
}
