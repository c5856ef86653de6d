import Foundation
import ImageCore

/// What an unfinished earlier run in place left, as its journal (its job and records, which a new start's journal
/// replaces) says and the files are now, for a start of other or the same work: each file that run replaced is
/// read once (its CRC-32), for every question the start asks of it.
public struct EarlierRunInPlace {
    /// Inputs it replaced that the start does not take as its own work: with another plan the start would stack its
    /// options on that run's; not among the start's outputs (other inputs, or not in place: `-o .` where the journal
    /// is) their records go, and that run's command again would process them a second time.
    public private(set) var forgotten: [String] = []
    /// The records of the inputs it replaced that the start takes as its own work (the same output, the same plan):
    /// what the start's journal begins with. Forgotten by the start and written again one by one as the run came to
    /// each, they were lost when it stopped first, and the next run processed those inputs a second time.
    public private(set) var carried: [FinishedRecord] = []
    /// Inputs of an in-place start that are, under another name, files it replaced (their folder or they renamed
    /// since), each with the name that run gave it. Taken for originals, they were processed a second time (a folder
    /// renamed between a stopped run and the same command again: 6 of 20 photos turned twice, exit 0).
    public private(set) var renamed: [(now: String, was: String)] = []

    /// What the run of `earlier`, by its `records`, left for a start of `items` under `plan` (`inPlace`, or into the
    /// folder `output`, where the journal is); nothing where `earlier` was not in place.
    public init(earlier: JobRecord, records: [String: FinishedRecord], items: [ExportItem], plan: ExportPlan,
                inPlace: Bool, in output: OutputDirectory) {
        guard earlier.options.inPlace else { return }
        let digest = Provenance.digest(of: plan)
        let taken = inPlace ? Set(items.map(\.output)) : []
        var settled = Set<String>()
        var moved: [(record: FinishedRecord, input: String)] = []
        for item in earlier.items {
            if let (record, plan) = Self.replacedRecord(of: item, in: records, output: output) {
                settled.insert(item.output)
                if taken.contains(item.output) && plan == digest { carried.append(record) } else { forgotten.append(item.input) }
            } else if let record = records[item.output], record.standsForAFile {
                moved.append((record, item.input))  // not where it was written, or changed since
            }
        }
        guard inPlace, !moved.isEmpty else { return }
        let open = items.filter { !settled.contains($0.output) }
        for (path, record) in Self.sameContent(open.map { output.url(of: $0.output) }, as: moved.map(\.record)) {
            renamed.append((open[path].input, moved[record].input))
        }
    }

    /// The files among `paths` whose content is that of one of `records` (its size and CRC-32), each with that record,
    /// by their indices. A file is read only where its size is one of theirs: other files cost a `stat` each.
    static func sameContent(_ paths: [String], as records: [FinishedRecord]) -> [(path: Int, record: Int)] {
        let sizes = Set(records.map(\.size))
        return paths.indices.compactMap { index in
            guard let size = FileVersion(path: paths[index])?.size, sizes.contains(size),
                  case .success(let present) = SmallFile.contents(of: paths[index]), present.count == size else { return nil }
            let crc = CRC32.checksum([UInt8](present))
            return records.firstIndex { $0.size == size && $0.crc32 == crc }.map { (index, $0) }
        }
    }

    /// The record of `item`'s file as a run in place replaced it, and that run's plan digest, when the file
    /// is still what it wrote (size and CRC-32); nil otherwise.
    static func replacedRecord(of item: ExportItem, in records: [String: FinishedRecord],
                               output: OutputDirectory) -> (FinishedRecord, String)? {
        guard let earlier = records[item.output], earlier.standsForAFile,
              let madeBefore = earlier.made, FileVersion(path: output.url(of: item.output))?.size == earlier.size,
              let present = output.regularFileContents(item.output), present.count == earlier.size,
              CRC32.checksum(present) == earlier.crc32 else { return nil }
        return (earlier, madeBefore.plan)
    }
}
