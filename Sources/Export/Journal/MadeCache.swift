import Foundation

/// What a cleaned output folder's journal said, kept in the user's cache so
/// that running the same export again recognizes kiln's own outputs without
/// making them again.
///
/// A run that exits 0 removes `OUTPUT/.kiln/` (a published folder holds only
/// its outputs). Before it does, the records of the outputs it wrote or
/// skipped — relative path, size, CRC-32 and what made them (the input file's
/// device, inode and change time, its size and modification time, the plan's
/// digest; no path) — go to
/// `$XDG_CACHE_HOME/kiln/made/` (`~/.cache/kiln/made/` without it), one file
/// per output folder named by the folder's device and inode. The next job
/// into that folder with no journal of its own reads them as hints: an output
/// whose size, CRC-32 and provenance match its hint, made from the very input
/// file it names (``FinishedRecord/input``), is skipped as the same
/// work at the cost of reading it once; any other output is made again and
/// compared, exactly as without the cache. A hint never makes a conflict.
///
/// Measured (W1 fit to 1920, 2 jobs, release build): running the same export
/// again into its cleaned folder took 2.04 s (every image redone to compare)
/// against 2.17 s for the first run; with these records 0.14–0.16 s (each
/// output read once for its CRC-32); with the journal kept, 0.07 s.
///
/// Best effort: a cache that cannot be read or written changes nothing but
/// the time a re-run takes. A file that is not the user's alone (another
/// owner, writable by others, a link) is not read, and a clean run replaces
/// it; a `made` folder that is not the user's alone is neither read nor
/// written; neither is opened through a link of its own. The folder is made
/// mode 0700, each file 0600. The newest ``keptFolders`` folders are kept.
public enum MadeCache {
    /// How many output folders' records are kept (the least recently written go first).
    static let keptFolders = 200

    /// The cache folder for `environment`, or nil when neither `XDG_CACHE_HOME` nor `HOME` is set.
    static func folder(_ environment: [String: String]) -> String? {
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") { return cache + "/kiln/made" }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/.cache/kiln/made"
    }

    /// The name, in the cache folder, of the file holding the records of the output folder
    /// `directory` (nil when it does not exist).
    static func name(for directory: String) -> String? {
        FileIdentity(path: directory).map { "\($0).ndjson" }
    }

    /// The records kept for the output folder `directory`, by output path; empty when there are none.
    public static func hints(for directory: String,
                             environment: [String: String] = ProcessInfo.processInfo.environment) -> [String: FinishedRecord] {
        guard let folder = folder(environment), let name = name(for: directory) else { return [:] }
        // Only a file this user wrote and no one else can, in a folder no one else can change: a hint
        // skips the work that would show an output changed, so one planted by another user must not
        // count. Checked on what is opened, not on the path (which could be swapped in between): the
        // folder and then the file are opened without following a link, the file without waiting
        // on a FIFO.
        let directoryFD = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard directoryFD >= 0 else { return [:] }
        defer { close(directoryFD) }
        var info = stat()
        guard fstat(directoryFD, &info) == 0, isPrivate(info) else { return [:] }
        let fd = openat(directoryFD, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return [:] }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, isPrivate(info),
              let data = try? handle.readToEnd() else { return [:] }
        var records: [String: FinishedRecord] = [:]
        for line in data.split(separator: UInt8(ascii: "\n")) {
            if let record = try? JSONDecoder().decode(FinishedRecord.self, from: Data(line)), isKept(record) {
                records[record.output] = record
            }
        }
        return records
    }

    /// Whether `info` is this user's and no one else may write to it.
    private static func isPrivate(_ info: stat) -> Bool {
        info.st_uid == getuid() && info.st_mode & 0o022 == 0
    }

    /// Whether `record` describes an output on disk and what made it: what is kept, and what a hint may be.
    private static func isKept(_ record: FinishedRecord) -> Bool {
        (record.status == .written || record.status == .skipped) && record.size > 0 && record.made != nil
    }

    /// Keeps the records of `records` that describe an output on disk (written or skipped, with
    /// what made it) for the output folder `directory`, with those kept for it before whose outputs
    /// `records` does not name and that are still there. Before, each clean run replaced what was kept: a
    /// folder that two exports filled in turn (`export s1 -o o`, `export s2 -o o`) lost the first's
    /// records, and `export s1 -o o --level 9` then took its level-1 outputs for the same work (the level
    /// is not in the pixels compared).
    public static func keep(_ records: [String: FinishedRecord], for directory: String,
                            environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let folder = folder(environment), let name = name(for: directory) else { return }
        let path = folder + "/" + name
        var merged = hints(for: directory, environment: environment).filter { output, _ in
            records[output] == nil && FileManager.default.fileExists(atPath: directory + "/" + output)
        }
        merged.merge(records) { _, new in new }
        let kept = merged.values.filter(isKept).sorted { $0.output < $1.output }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var data = Data()
        for record in kept {
            guard let line = try? encoder.encode(record) else { continue }
            data.append(line)
            data.append(UInt8(ascii: "\n"))
        }
        let manager = FileManager.default
        var info = stat()
        guard (try? manager.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                            attributes: [.posixPermissions: 0o700])) != nil,
              lstat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, isPrivate(info) else { return }
        // Written whole, then renamed over the old file: a reader sees one or the other.
        let temporary = "\(path).\(getpid()).tmp"
        guard manager.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else { return }
        if rename(temporary, path) != 0 { unlink(temporary) }
        prune(folder)
    }

    /// Removes the files of all but the ``keptFolders`` most recently written output folders, and
    /// temporary files more than an hour old (a kiln killed between writing one and renaming it).
    private static func prune(_ folder: String) {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: folder) else { return }
        let dated = names.compactMap { name -> (String, Date)? in
            let path = folder + "/" + name
            guard let date = (try? manager.attributesOfItem(atPath: path))?[.modificationDate] as? Date else { return nil }
            return (path, date)
        }
        for (path, date) in dated where path.hasSuffix(".tmp") && date < Date(timeIntervalSinceNow: -3600) { unlink(path) }
        let records = dated.filter { $0.0.hasSuffix(".ndjson") }
        for (path, _) in records.sorted(by: { $0.1 > $1.1 }).dropFirst(keptFolders) { unlink(path) }
    }
}
