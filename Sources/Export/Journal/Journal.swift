import Foundation
import Render
import Locking

/// The job state kept in the output directory (`OUTPUT/.kiln/`):
/// - `job.json`: the ``JobRecord``, written once per start (temp + fsync + rename);
/// - `finished.ndjson`: one ``FinishedRecord`` per finished item, appended in
///   one write (one per batch under group commit) and flushed as ``Durability``
///   says, so a crash loses at most the lines not yet flushed (a torn last line
///   is ignored when reading);
/// - `status.json`: the ``LiveStatus``, replaced (not fsynced) a few times a second.
///
/// Appending keeps recording O(1) per image however long the batch, where
/// rewriting a whole journal per image would be quadratic.
public final class Journal: Sendable {
    /// The journal's directory, `OUTPUT/.kiln` (for messages).
    public let directory: String
    /// The journal's directory held by the running job (see ``HeldDirectory``);
    /// nil for a journal only read (`kiln status`), opened by path per use.
    private let held: HeldDirectory?
    /// `finished.ndjson`, opened for appending at the first record and kept open
    /// (one `open` per job, not per image).
    private let appendFile = Locked<Int32>(-1)

    private var jobPath: String { directory + "/job.json" }
    private var finishedPath: String { directory + "/finished.ndjson" }

    /// The journal of the job in `outputDirectory` (nothing is read or written yet).
    public init(outputDirectory: String) {
        directory = outputDirectory + "/.kiln"
        held = nil
    }

    /// The journal kept in `directory` (a shard's, `OUTPUT/.kiln/shards/K-of-N`; see ``ShardLayout``).
    public init(directory: String) {
        self.directory = directory
        held = nil
    }

    /// The journal of a running job, in its held journal folder: every file of
    /// it is reached through that descriptor, wherever the folder is moved.
    public init(output: OutputDirectory) {
        held = output.journalDirectory
        directory = output.journalDirectory.path
    }

    /// The journal's folder: the held one, else opened now by path (created when `create`).
    func folder(create: Bool = false) throws -> HeldDirectory {
        if let held { return held }
        do throws(OutputError) {
            return try HeldDirectory(path: directory, create: create)
        } catch .system(_, let code) {
            let parent = (directory as NSString).deletingLastPathComponent
            // No folder there, or a file where the folder should be ("cannot read the journal afile/.kiln: Not a
            // directory" said otherwise): no job, said as such (``JournalError/noJob(_:)``).
            if !create && (code == ENOENT || code == ENOTDIR && !isFolder(parent)) { throw JournalError.noJob(parent) }
            // There but unreadable (a permission): said so, with the reason, never "no job".
            throw JournalError.system("cannot read the journal \(directory)", code)
        } catch {
            throw JournalError.unreadable(directory, reason: error.description)
        }
    }

    /// Starts a new job: records it, with `carried` as its first finished items (an earlier in-place run's records
    /// of the inputs it replaced, which this job takes as its own work), and `earlier` as what earlier jobs' records
    /// said of the outputs there (``earlier()``): not this job's, but what made those outputs, for this job and its
    /// resumes to tell this work from another's. (Before, a start forgot them: its resume took a stopped export's
    /// level-6 PNGs, the same pixels, for this work at level 3, where the export run to its end found them conflicts.)
    public func start(_ record: JobRecord, carrying carried: [FinishedRecord] = [], earlier: [FinishedRecord] = []) throws {
        let folder = try folder(create: true)
        closeAppendFile()  // the file is replaced: later records go to the new one
        try DurableFile.replace("earlier.ndjson", in: folder, with: try Self.lines(of: earlier))
        try DurableFile.replace("finished.ndjson", in: folder, with: try Self.lines(of: carried))
        try DurableFile.replace("job.json", in: folder, with: try JobRecordEncoding.encode(record, with: Self.encoder))
    }

    /// The recorded job, or `JournalError.noJob`; a journal that is there but
    /// cannot be read (a permission) is an error naming the file and the reason.
    public func job() throws -> JobRecord {
        guard let data = try DurableFile.contents(of: "job.json", in: folder()) else {
            throw JournalError.noJob((directory as NSString).deletingLastPathComponent)
        }
        do {
            return try JSONDecoder().decode(JobRecord.self, from: data)
        } catch let error as DecodingError {
            // Names the place, e.g. "options.plan.operations[0].sigma: must be 0.01…1000, not 1e+30".
            throw JournalError.unreadable(jobPath, reason: Recipe.describe(error))
        } catch {
            throw JournalError.unreadable(jobPath, reason: "\(error)")
        }
    }

    /// Every finished item recorded so far, by output path (a later record wins).
    public func finished() -> [String: FinishedRecord] {
        records(in: "finished.ndjson")
    }

    /// What earlier jobs' records said of the outputs there when this job started, by output path; none in journals
    /// of kiln before 2026-11-28.
    public func earlier() -> [String: FinishedRecord] {
        records(in: "earlier.ndjson")
    }

    /// The records in the journal's file `name`, by output path (a later record wins).
    private func records(in name: String) -> [String: FinishedRecord] {
        guard let data = try? DurableFile.contents(of: name, in: folder()) else { return [:] }
        var records: [String: FinishedRecord] = [:]
        for line in data.split(separator: UInt8(ascii: "\n")) {
            // A line torn by a crash does not parse; it is simply not finished.
            if let record = try? JSONDecoder().decode(FinishedRecord.self, from: Data(line)) {
                records[record.output] = record
            }
        }
        return records
    }

    /// Records a finished item durably (appended and flushed). Safe from any thread.
    public func recordFinished(_ record: FinishedRecord) throws {
        try append([record], flush: true)
    }

    /// Appends records in one write, flushing them (`fdatasync`) when `flush`
    /// is true; otherwise ``flush()`` does, for a whole batch. Safe from any thread.
    public func append(_ records: [FinishedRecord], flush: Bool) throws {
        let lines = try Self.lines(of: records)
        try appendFile.withLock { fd in
            if fd < 0 { fd = try DurableFile.openForAppending("finished.ndjson", in: folder(create: true)) }
            try DurableFile.append(fd, lines, path: finishedPath, flush: flush)
        }
    }

    /// `records` as the file holds them: a line of JSON each.
    private static func lines(of records: [FinishedRecord]) throws -> Data {
        var lines = Data()
        for record in records {
            lines.append(try encoder.encode(record))
            lines.append(UInt8(ascii: "\n"))
        }
        return lines
    }

    /// Flushes the records appended so far (one `fdatasync`). Safe from any thread.
    public func flush() throws {
        try appendFile.withLock { fd in
            guard fd >= 0 else { return }
            guard fdatasync(fd) == 0 else { throw JournalError.system("cannot flush \(finishedPath)", errno) }
        }
    }

    /// Closes the journal's open file (before its folder is removed after a fully successful run).
    public func close() {
        closeAppendFile()
    }

    /// Publishes the live status for `kiln status` (best effort: a failure here never stops a job).
    public func publish(_ status: LiveStatus) {
        guard let data = try? Self.encoder.encode(status), let folder = try? folder() else { return }
        do {
            try DurableFile.replace("status.json", in: folder, with: data, sync: false)
        } catch {
            // A full disk has no room for the new file, but the old one's blocks take the final status.
            try? DurableFile.overwrite("status.json", in: folder, with: data)
        }
    }

    /// The last published status, if any.
    public func status() -> LiveStatus? {
        (try? DurableFile.contents(of: "status.json", in: folder())).flatMap { $0 }
            .flatMap { try? JSONDecoder().decode(LiveStatus.self, from: $0) }
    }

    private func closeAppendFile() {
        appendFile.withLock { fd in
            if fd >= 0 { Glibc.close(fd) }
            fd = -1
        }
    }

    deinit {
        closeAppendFile()
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

extension Journal {
    /// The finished items an earlier run recorded that still hold: written
    /// outputs whose size and CRC-32 match the record, and skips whose output
    /// still exists. Failures and conflicts are left out, so a resume tries them again.
    public func verifiedFinished(in output: OutputDirectory) -> [String: FinishedRecord] {
        verify(in: output).kept
    }

    /// The finished items that still hold (see ``verifiedFinished(in:)``), and the
    /// outputs recorded as written that no longer match their record: writes the
    /// disk lost (a power cut before they were flushed, a truncation). The job
    /// wrote those, so its resume writes them again.
    ///
    /// Not in place, a whole image file (``ImageCodecs/decodesWhole(_:)``) that is not what the job recorded was
    /// changed by someone since: neither kept nor lost, it is met as the export meets it, a conflict that keeps it.
    ///
    /// With the job's `items` (not in place, where the input is what the job wrote), an output whose input
    /// is now another file than the one its record says made it (size, modification time) is made again
    /// too: before, a resume kept it, made from what the input was, and exited 0.
    ///
    /// In place, a file recorded as replaced that is neither what the job wrote nor the input it read (its size
    /// and modification time) was changed by something else since: another run, say from another folder,
    /// processed it. It is kept as it is (`changed`), never processed a second time: before, a resume made it
    /// again from the other run's result. Only a file still the input it read is made again (the rename had not
    /// happened).
    ///
    /// In place, a file recorded as replaced (or skipped as replaced before) that is no longer there was moved or
    /// removed since: its work is done, and the input it was is gone (`gone`). Kept as done: before, the resume
    /// tried it, failed on the missing input and recorded that failure over the record of its replacement, and a
    /// later resume, the file put back, processed it a second time (an image turned twice, exit 0).
    public func verify(in output: OutputDirectory, items: [ExportItem] = [], inPlace: Bool = false)
        -> (kept: [String: FinishedRecord], lost: Set<String>, changed: [String], gone: [String])
    {
        var kept: [String: FinishedRecord] = [:]
        var lost = Set<String>()
        var changed: [String] = [], gone: [String] = []
        let inputs = inPlace ? [:] : Dictionary(items.map { ($0.output, $0.input) }, uniquingKeysWith: { first, _ in first })
        for (relative, record) in finished() {
            // A conflict's record says what made the output it kept, not this job's work: never a write to redo
            // (a resume overwrote such a kept output, without --overwrite, once its input had changed).
            if record.status == .conflict || record.status == .failed { continue }
            let now = inputs[relative].flatMap { FileVersion(path: $0) }
            if let made = record.made, let now, now.size != made.inputSize || now.modified != made.inputModified {
                lost.insert(relative)
                continue
            }
            if inPlace && !output.exists(relative) {
                kept[relative] = record
                gone.append(relative)
                continue
            }
            switch record.status {
            case .failed, .conflict: continue  // above
            case .skipped where inPlace:
                if output.exists(relative) { kept[relative] = record }
            case .skipped:
                // A skip's record holds the size of the output it found identical: kept while a file of that size is
                // there (by its size alone: a resume of a batch of skips reads none of them). Another file is
                // someone's since (kiln wrote none there): neither kept nor redone, the job meets it as the export
                // does. Before, a skipped output replaced since was trusted by its name, and the resume ended clean.
                if output.regularFileSize(relative) == record.size { kept[relative] = record }
            case .written:
                let bytes = output.regularFileContents(relative)
                if let bytes, bytes.count == record.size, CRC32.checksum(bytes) == record.crc32 {
                    // Its input rewritten since under the same size and time (an editor or a sync tool that keeps
                    // times): its inode or change time moved on. The output, still the one this job wrote, is done
                    // again (a chmod or a new link moves the change time too: then the same bytes again). Before,
                    // the old version's output stayed, said nowhere.
                    if let now, record.input.map(now.differs) == true { lost.insert(relative) } else { kept[relative] = record }
                } else if inPlace, bytes != nil, let made = record.made, let now = FileVersion(path: output.url(of: relative)),
                          now.size != made.inputSize || now.modified != made.inputModified {
                    kept[relative] = record
                    changed.append(relative)
                } else if !inPlace, let bytes, ImageCodecs.decodesWhole(bytes) {
                    // A whole image where this job wrote another: someone changed it after kiln wrote it (a write the
                    // disk lost leaves no such file). Neither kept nor redone: the job meets it as the export does, a
                    // conflict that keeps it (`--overwrite` replaces it). Before, the resume overwrote the user's edit.
                    continue
                } else {
                    lost.insert(relative)
                }
            }
        }
        return (kept, lost, changed.sorted(), gone.sorted())
    }
}
