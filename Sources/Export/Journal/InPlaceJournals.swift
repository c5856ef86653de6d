import Foundation

/// The journals of unfinished in-place jobs elsewhere that hold some of a new in-place job's inputs. An in-place
/// job's journal is `./.kiln` where it was started: the same command run from another folder (`cd in && kiln
/// export --in-place .` after a stop in `in/..`) had a journal of its own, processed the stopped job's replaced
/// inputs a second time, and the stopped job's resume then did the rest again (found 2026-11-28).
///
/// Looked for in each input's folder and every folder above it, where such a journal stands when the job was
/// started there: a few `stat`s per input folder, a journal read only where one is. Its inputs are named by their
/// identity, and those it replaced that are no longer where it wrote them by their content (size and CRC-32).
public enum InPlaceJournals {
    /// Each folder (other than `here`, the new job's own) whose `.kiln` holds an in-place job that has not
    /// finished clean, with how many of `inputs` it names (the same files, whatever the spelling).
    public static func unfinished(holding inputs: [String], except here: String) -> [(folder: String, count: Int)] {
        let folders = Set(inputs.map { absolute(($0 as NSString).deletingLastPathComponent) })
        var candidates = Set<String>()
        for folder in folders {
            var place = folder
            while true {
                candidates.insert(place)
                guard place != "/" else { break }
                place = (place as NSString).deletingLastPathComponent
                if place.isEmpty { place = "/" }
            }
        }
        let own = FileIdentity(path: here)
        var found: [(folder: String, count: Int)] = []
        // Each input looked at only where another journal stands (rare): 100,000 inputs cost nothing otherwise.
        var files: Set<FileIdentity>?
        for folder in candidates.sorted() where FileIdentity(path: folder) != own {
            guard FileManager.default.fileExists(atPath: folder + "/.kiln/job.json") else { continue }
            let journal = Journal(outputDirectory: folder)
            guard let record = try? journal.job(), record.options.inPlace else { continue }
            let ended = journal.status()
            guard !(ended?.state == .finished && ended?.exitCode == 0) else { continue }
            if files == nil { files = Set(inputs.compactMap { FileIdentity(path: $0) }) }
            let count = record.items.count { item in
                let path = item.input.hasPrefix("/") ? item.input : record.workingDirectory + "/" + item.input
                return FileIdentity(path: path).map { files?.contains($0) == true } == true
            }
            // Files it replaced that are no longer where it wrote them (their folder renamed, a file moved: `cd moved
            // && kiln export --in-place .` turned them twice): found among the inputs by their content.
            let moved = journal.finished().values.filter { finished in
                finished.standsForAFile && FileVersion(path: folder + "/" + finished.output)?.size != finished.size
            }
            let renamed = moved.isEmpty ? 0 : EarlierRunInPlace.sameContent(inputs, as: Array(moved)).count
            if count + renamed > 0 { found.append((folder, count + renamed)) }
        }
        return found
    }

    private static func absolute(_ folder: String) -> String {
        let path = folder.isEmpty ? "." : folder
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
