import Foundation

/// Where a sharded job keeps its state in a shared output directory:
/// `OUTPUT/.kiln/shards/K-of-N/` per shard (journal, status, lock and temporary
/// files: a shard never touches another's), and `OUTPUT/.kiln/cancelled`, the
/// mark `kiln cancel` leaves so that shards on every host stop at their next image.
public enum ShardLayout {
    /// `OUTPUT/.kiln/shards`.
    public static func shardsDirectory(in output: String) -> String { output + "/.kiln/shards" }

    /// The journal folder of one shard.
    public static func directory(of shard: ShardSpec, in output: String) -> String {
        shardsDirectory(in: output) + "/" + shard.folderName
    }

    /// The shards that have a folder in `output`, by count then index.
    public static func shards(in output: String) -> [ShardSpec] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: shardsDirectory(in: output))) ?? []
        return names.compactMap { name -> ShardSpec? in
            let parts = name.split(separator: "-")
            guard parts.count == 3, parts[1] == "of", let index = Int(parts[0]), let count = Int(parts[2]),
                  index >= 0, index < count else { return nil }
            return ShardSpec(index: index, count: count)
        }.sorted { ($0.count, $0.index) < ($1.count, $1.index) }
    }

    /// Whether `output` holds a sharded job.
    public static func isSharded(_ output: String) -> Bool { !shards(in: output).isEmpty }

    /// What the other journals in `output` (each shard's but `shard`'s, and the whole job's where `shard` is one)
    /// record of the files their jobs left there, by output path: for a job that has no record of those outputs, as the
    /// user cache's records are (``ExportJob``'s hints: each stands only for the very input file and output bytes it
    /// names). Shards keep no cache records; before, a plain export or another shard met their outputs unrecorded,
    /// found the same pixels made at another `--level` a skip, and recorded them as its own work.
    /// Every journal's record of a path is kept: a shard may have rewritten what another recorded.
    public static func otherJournalsRecords(in output: String, besides shard: ShardSpec?) -> [String: [FinishedRecord]] {
        var journals = shards(in: output).filter { $0 != shard }.map { Journal(outputDirectory: output, shard: $0) }
        if shard != nil { journals.append(Journal(outputDirectory: output)) }
        var records: [String: [FinishedRecord]] = [:]
        for journal in journals {
            for (path, record) in journal.finished() where record.standsForAFile { records[path, default: []].append(record) }
        }
        return records
    }

    private static func cancelPath(_ output: String) -> String { output + "/.kiln/cancelled" }

    /// Marks the job in `output` cancelled (durably: a host that reads it later must see it).
    public static func markCancelled(_ output: String) throws {
        let state = try HeldDirectory(".kiln", in: HeldDirectory(path: output, create: false), create: true)
        let note = "cancelled at \(Date()) by kiln cancel (pid \(getpid()) on \(Host.name))\n"
        try DurableFile.replace("cancelled", in: state, with: Data(note.utf8))
    }

    /// The cancel mark's note, when the job in `output` was cancelled.
    public static func cancelMark(_ output: String) -> String? {
        FileManager.default.contents(atPath: cancelPath(output)).map {
            String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Lifts the cancel mark (`kiln resume --shard`): shards may run again.
    public static func liftCancel(_ output: String) {
        unlink(cancelPath(output))
    }
}

/// This machine's name, as shards record it so `kiln status` can say where each runs.
public enum Host {
    /// `gethostname`, or `localhost` when it fails.
    public static var name: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension Journal {
    /// The journal of shard `shard` of the job in `outputDirectory` (or of the whole job when nil).
    public convenience init(outputDirectory: String, shard: ShardSpec?) {
        if let shard {
            self.init(directory: ShardLayout.directory(of: shard, in: outputDirectory))
        } else {
            self.init(outputDirectory: outputDirectory)
        }
    }
}
