/// One image the job is done with, on its way to the disk and the journal
/// (see ``GroupCommit``): its result, its journal record and, when it was
/// written, its output staged in `.kiln/tmp/`.
struct FinishedImage: Sendable {
    /// What is reported once the image is committed.
    var result: FileResult
    /// What the journal records.
    var record: FinishedRecord
    /// The output to put in place at `record.output`; nil when nothing is written
    /// (skips, conflicts, failures) or it was already put in place (`--in-place`).
    var staged: StagedOutput?
    /// Whether the output may replace an existing file (`--overwrite`).
    var replace = false
    /// Whether the record is already in the journal, flushed (`--in-place` records before its rename).
    var recorded = false
    /// Counts and reports the image, once it is as durable as the job promises.
    var deliver: @Sendable (FileResult) -> Void

    /// Marks the image failed (its output could not be put in place or recorded).
    mutating func fail(_ reason: String) {
        result.status = .failed
        result.error = reason
        result.bytesWritten = 0
        record = FinishedRecord(output: record.output, status: .failed, size: 0, crc32: 0, error: reason)
    }
}
