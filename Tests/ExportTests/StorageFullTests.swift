@testable import Export
import Foundation
import Testing

/// What a job that stops for its file system says (``StorageFull``): the remedy fits the failure.
@Suite struct StorageFullTests {
    /// Before: a read-only file system was "left for `kiln resume` once there is room", which no resume there could follow.
    @Test func theRemedyFitsTheFailure() {
        let said = { (code: Int32) in StorageFull.reason(OutputError.system("write", code), output: "out") ?? "" }
        #expect(said(ENOSPC).contains("is full") && said(ENOSPC).hasSuffix("`kiln resume out` once there is room"))
        #expect(said(EDQUOT).contains("is over its quota") && said(EDQUOT).hasSuffix("once there is room"))
        #expect(said(EROFS).contains("is read-only") && said(EROFS).hasSuffix("`kiln resume out` once it is writable"))
        #expect(StorageFull.reason(OutputError.system("write", EIO), output: "out") == nil)
    }
}
