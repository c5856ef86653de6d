import Export
import Foundation
import ImageCore
import KilnTestSupport
import Render
import Testing

/// The journal (`OUTPUT/.kiln/`): the job record, finished records, and what a resume may trust.
@Suite("journal records and resume verification")
struct JournalTests {
    static func record(_ work: TemporaryDirectory) -> JobRecord {
        var options = ExportOptions(inputs: [work.join("in")], outputDirectory: work.join("out"))
        options.plan = ExportPlan(operations: [.blur(Blur(sigma: 2)), .grayscale], level: 3)
        return JobRecord(id: "job-1", options: options, device: "cpu", title: nil, subtitle: "s",
                         items: [ExportItem(input: work.join("in/a.png"), output: "a.png")])
    }

    @Test("the job record reads back as written; no record is its own error")
    func jobRecord() throws {
        let work = try TemporaryDirectory()
        let journal = Journal(outputDirectory: work.join("out"))
        #expect(throws: JournalError.self) { try journal.job() }
        let record = Self.record(work)
        try journal.start(record)
        #expect(try journal.job() == record)
    }

    @Test("job.json's items, written without JSONEncoder's tree, read back exactly, as JSONEncoder would write them")
    func jobRecordItemsEncoding() throws {
        let work = try TemporaryDirectory()
        var record = Self.record(work)
        record.items = [
            ExportItem(input: "in/a \"quoted\" \\ back/slash.png", output: "a \"quoted\" \\ back/slash.png"),
            ExportItem(input: "/abs/ünïcödé 😀.png", output: "ünïcödé 😀.png", problem: "its output is also the output of x"),
            ExportItem(input: "tab\tnew\nline\u{1}.png", output: "tab\tnew\nline\u{1}.png"),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try JobRecordEncoding.encode(record, with: encoder)
        #expect(try JSONDecoder().decode(JobRecord.self, from: data) == record)
        // Without control characters (which each escape in its own valid way), the bytes are JSONEncoder's.
        record.items.removeLast()
        #expect(try JobRecordEncoding.encode(record, with: encoder) == encoder.encode(record))
        let journal = Journal(outputDirectory: work.join("out"))
        try journal.start(record)
        #expect(try journal.job() == record)
    }

    @Test("finished records: the later one wins, a torn last line is ignored, a new start forgets them")
    func finishedRecords() throws {
        let work = try TemporaryDirectory()
        let journal = Journal(outputDirectory: work.join("out"))
        try journal.start(Self.record(work))
        try journal.recordFinished(FinishedRecord(output: "a.png", status: .failed, size: 0, crc32: 0, error: "bad"))
        try journal.recordFinished(FinishedRecord(output: "a.png", status: .written, size: 3, crc32: 7, error: nil))
        try journal.recordFinished(FinishedRecord(output: "b.png", status: .skipped, size: 0, crc32: 0, error: nil))
        let handle = try #require(FileHandle(forWritingAtPath: journal.directory + "/finished.ndjson"))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"output":"c.png","status":"wri"#.utf8))
        try handle.close()
        let finished = journal.finished()
        #expect(finished.keys.sorted() == ["a.png", "b.png"])
        #expect(finished["a.png"]?.status == .written && finished["a.png"]?.size == 3)
        try journal.start(Self.record(work))
        #expect(journal.finished().isEmpty)
    }

    @Test("resume trusts a written output only while its size and CRC-32 match; failures are redone; skips need their file")
    func verification() throws {
        let work = try TemporaryDirectory()
        let output = try OutputDirectory(path: work.join("out"))
        let journal = Journal(outputDirectory: output.path)
        try journal.start(Self.record(work))
        for name in ["good.png", "altered.png", "shortened.png"] {
            let bytes: [UInt8] = [9, 8, 7, 6]
            try output.write(bytes, to: name, replace: false)
            try journal.recordFinished(FinishedRecord(output: name, status: .written, size: bytes.count,
                                                      crc32: CRC32.checksum(bytes), error: nil))
        }
        try Data([9, 8, 7, 5]).write(to: URL(fileURLWithPath: output.url(of: "altered.png")))
        try Data([9, 8, 7]).write(to: URL(fileURLWithPath: output.url(of: "shortened.png")))
        try journal.recordFinished(FinishedRecord(output: "missing.png", status: .written, size: 4, crc32: 1, error: nil))
        try journal.recordFinished(FinishedRecord(output: "failed.png", status: .failed, size: 0, crc32: 0, error: "x"))
        try output.write([1], to: "kept.png", replace: false)
        try journal.recordFinished(FinishedRecord(output: "kept.png", status: .skipped, size: 1, crc32: CRC32.checksum([1]), error: nil))
        try journal.recordFinished(FinishedRecord(output: "gone.png", status: .skipped, size: 1, crc32: CRC32.checksum([1]), error: nil))
        // A skip's file replaced since (told by its size): not trusted by its name (before, kept, and the resume ended
        // clean over it).
        try output.write([2, 2], to: "replaced.png", replace: false)
        try journal.recordFinished(FinishedRecord(output: "replaced.png", status: .skipped, size: 1, crc32: CRC32.checksum([1]), error: nil))
        #expect(journal.verifiedFinished(in: output).keys.sorted() == ["good.png", "kept.png"])
    }
}
