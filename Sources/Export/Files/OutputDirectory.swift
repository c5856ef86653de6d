import Foundation
import Synchronization

/// The output directory of a job, and the only place that writes into it.
///
/// The folder, the job's journal folder and its `tmp/` are held by descriptor
/// from start to end (see ``HeldDirectory``): every output is made, named and
/// checked relative to them, never through a path looked up again. A folder
/// renamed while the job runs keeps receiving the job's outputs where it now
/// is; a symlink put in its old place, or in place of `.kiln`, `tmp` or any
/// folder on an output's path, is refused or removed, never followed.
///
/// Every output is written to a file with no name (`O_TMPFILE` in the held
/// `tmp/`), flushed (alone, with its batch, or not at all: see ``Durability``),
/// and linked into place: one change to the output's directory, and a killed
/// process leaves nothing behind. Where the file system makes no unnamed files,
/// a temporary file in `tmp/` (hidden from listings of the outputs) is renamed
/// into place instead. Either way an output path either does not exist or
/// holds a complete image file, even if the process is killed.
public final class OutputDirectory: Sendable {
    /// The output directory as given (for messages and reported output paths).
    public let path: String
    /// The output directory, held.
    public let root: HeldDirectory
    /// `.kiln` inside it, held (removed with everything in it after a clean run).
    private let state: HeldDirectory
    /// The job's journal folder, held: `.kiln`, or a shard's `.kiln/shards/K-of-N`.
    public let journalDirectory: HeldDirectory
    /// `tmp/` in the journal folder, held: where outputs are staged.
    private let temporary: HeldDirectory
    private let counter = AtomicCounter()
    /// Called once, the first time an output is put in place without a hard link.
    private let notice: @Sendable (String) -> Void
    private let saidNoHardLinks = Atomic<Bool>(false)
    /// This process, which names its temporary files (read once: the names are made per image).
    private let processID = getpid()
    /// Whether outputs are staged as unnamed files (see ``stage(_:flush:)``).
    private let stagesUnnamed: Bool
    /// Whether the directory held nothing but the job's own `.kiln` when opened, or when last looked at
    /// (``lookAgain()``, once the job holds its lock): then no output path can be occupied but by this job
    /// (which never writes one twice, and whose placing fails rather than replace), so none needs a `stat` first.
    public var startedEmpty: Bool { empty.load(ordering: .relaxed) }
    private let empty: Atomic<Bool>

    /// The folders opening an output directory at `path` would make: `path` and its missing parents, deepest
    /// first (empty when `path` exists). On the path's text (``FolderAncestry/parent(of:)``: Foundation's
    /// `deletingLastPathComponent` traps on a one-character path).
    public static func missingFolders(of path: String) -> [String] {
        var missing: [String] = []
        var folder = path
        while !folder.isEmpty, folder != "/", folder != ".", !FileManager.default.fileExists(atPath: folder) {
            missing.append(folder)
            let parent = FolderAncestry.parent(of: folder)
            guard parent != folder else { break }
            folder = parent
        }
        return missing
    }

    /// Looks again whether the directory holds only `.kiln`: a job that waited for another's lock found
    /// that job's outputs there after it (before, their paths were taken as free, and each failed at its
    /// placing: "the output appeared while the job ran").
    public func lookAgain() {
        empty.store(root.names() == [".kiln"], ordering: .relaxed)
    }

    /// One of the folders a job holds.
    enum HeldFolder {
        /// The output folder, `.kiln` or the journal's folder: what was recorded is gone with it.
        case recording
        /// The journal's `tmp/`, where outputs are staged.
        case staging
    }

    /// The held folder that was removed while the job ran (the output folder, `.kiln`, the journal's folder or its
    /// `tmp/`), the outermost first, by its path as opened; nil while all stand. Nothing can be made in it any more.
    var removedFolder: (path: String, folder: HeldFolder)? {
        if let held = [root, state, journalDirectory].first(where: \.isRemoved) { return (held.path, .recording) }
        return temporary.isRemoved ? (temporary.path, .staging) : nil
    }

    /// The path of `.kiln` as opened (for messages and tests).
    public var stateDirectory: String { state.path }

    /// Opens (creating if needed) the output directory, its journal folder
    /// `journal` (relative: `.kiln`, or a shard's `.kiln/shards/K-of-N`) and
    /// that folder's `tmp/`, and holds them; removes temporary files left by
    /// processes that no longer run.
    ///
    /// A shard of a job in a shared directory passes `removesStale: false`,
    /// then calls ``removeTemporaries()`` once it holds the shard's lock: a pid
    /// says nothing about processes on other hosts, whose files the pid check
    /// would delete. `notice` is told once when the file system has no hard links.
    public init(path: String, journal: String = ".kiln", removesStale: Bool = true,
                notice: @escaping @Sendable (String) -> Void = { _ in }) throws(ExportError) {
        self.path = path
        self.notice = notice
        do throws(OutputError) {
            root = try HeldDirectory(path: path, create: true)
            state = try HeldDirectory(".kiln", in: root, create: true)
            journalDirectory = journal == ".kiln" ? state
                : try HeldDirectory.opening(String(journal.dropFirst(".kiln/".count)), in: state, create: true)
            temporary = try HeldDirectory("tmp", in: journalDirectory, create: true)
        } catch {
            throw .badOutputDirectory(path, reason: error.description)
        }
        empty = Atomic(root.names() == [".kiln"])
        stagesUnnamed = !Self.linksDisabled && !Self.unnamedDisabled
            && Self.makesUnnamedFiles(in: temporary, probeName: "\(processID)-probe.tmp")
        if removesStale { removeStaleTemporaries() }
    }

    /// Whether the file system of `directory` makes unnamed files and links
    /// them by `/proc/self/fd` (tried once, with a probe linked and removed).
    private static func makesUnnamedFiles(in directory: HeldDirectory, probeName: String) -> Bool {
        let fd = openat(directory.descriptor, ".", LinuxCalls.openUnnamed | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard LinuxCalls.nameOpenFile(fd, in: directory.descriptor, as: probeName) == 0 else { return false }
        directory.remove(probeName)
        return true
    }

    /// Removes every file in the temporary directory: for a shard that holds its
    /// lock, whatever is there was left by a dead process (of any host).
    public func removeTemporaries() {
        for name in temporary.names() { temporary.remove(name) }
    }

    /// Removes `.kiln` and everything in it (after a clean run), through the held
    /// folder: never a `.kiln` put in its place, never through a symlink. Where shards
    /// share the folder (`.kiln/shards`), only this job's own files: the shards' journals
    /// and their cancel mark (`cancelled`) are theirs. (Before, a plain export that ended
    /// in a folder shards shared removed them all, a running shard's journal and lock too:
    /// `kiln status` and `kiln cancel` then said the folder held no job.) A shard that
    /// starts in the moment between the look and the removal may still lose its folder.
    public func removeJournal() {
        if let shards = state.status(of: "shards"), shards.st_mode & S_IFMT == S_IFDIR {
            state.removeContents(except: ["shards", "cancelled"])
        } else {
            root.removeTree(".kiln", expected: state)
        }
    }

    /// Whether the job folder held (`.kiln`) is still the one of that name: false once the job that made it
    /// removed it after its clean end (renamed away first), or another job made a new one in its place.
    public var holdsItsJobFolder: Bool {
        root.holds(".kiln", state)
    }

    /// The path of an output given relative to this directory (an absolute one, as
    /// `--in-place` records its inputs, stays as it is), for messages and reports.
    /// (In the current folder, as an in-place job's is, the relative path itself: not "././im.png".)
    public func url(of relative: String) -> String {
        relative.hasPrefix("/") || path == "." ? relative : path + "/" + relative
    }

    /// Whether something (a file, a directory, a symlink, even dangling) sits at this output path.
    public func exists(_ relative: String) -> Bool {
        guard let (parent, name) = try? parent(of: relative, create: false) else { return false }
        return parent.status(of: name) != nil
    }

    /// The type (`S_IFDIR`, `S_IFIFO`, `S_IFLNK`, …) of what sits at this output path, a symlink not followed;
    /// nil when nothing does.
    public func fileType(_ relative: String) -> mode_t? {
        guard let (parent, name) = try? parent(of: relative, create: false), let info = parent.status(of: name) else {
            return nil
        }
        return info.st_mode & S_IFMT
    }

    /// The size of the output `relative` when it is a regular file (a symlink is never followed), else nil.
    public func regularFileSize(_ relative: String) -> Int? {
        guard let (parent, name) = try? parent(of: relative, create: false), let info = parent.status(of: name),
              (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    /// The bytes of the output `relative` when it is a regular file (a symlink is never followed), else nil.
    public func regularFileContents(_ relative: String) -> [UInt8]? {
        // Only a regular file is opened (a device's open can act), and not blocking even then: a named pipe put
        // there meanwhile is opened at once, found no file and kept (opened waiting for a writer, it held the job
        // until the watchdog stopped it, exit 75, naming nothing).
        guard let (parent, name) = try? parent(of: relative, create: false),
              parent.status(of: name).map({ $0.st_mode & S_IFMT == S_IFREG }) == true else { return nil }
        let fd = parent.openFile(name, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            offset += n
        }
        return bytes
    }

    /// Writes `bytes` as the output `relative`, atomically, its data flushed
    /// before it is put in place. Replaces an existing file only when `replace` is true.
    public func write(_ bytes: [UInt8], to relative: String, replace: Bool) throws(OutputError) {
        var staged = try startStaging()
        do throws(OutputError) {
            try Self.writeAll(staged.descriptor, bytes)
            try finishStaging(&staged, flush: .now)
        } catch {
            discard(&staged)
            throw error
        }
        try place(staged, at: relative, replace: replace)
    }

    /// A new unnamed file (or, where the file system makes none, a temporary
    /// file in `tmp/`), open for an encoder to write into (``StagedFile``), to
    /// be completed by ``finishStaging(_:flush:)`` and put in place by
    /// ``place(_:at:replace:)``, or abandoned by ``discard(_:)``.
    public func startStaging() throws(OutputError) -> StagedOutput {
        // An unnamed file stays open until placed (up to a batch of them): when
        // no descriptor is left for one, a named file, closed sooner, serves.
        let unnamed = stagesUnnamed
            ? openat(temporary.descriptor, ".", LinuxCalls.openUnnamed | O_WRONLY | O_CLOEXEC, 0o644) : -1
        if unnamed >= 0 { return StagedOutput(temporary: nil, descriptor: unnamed) }
        let name = "\(processID)-\(counter.next()).tmp"
        let fd = temporary.openFile(name, O_WRONLY | O_CREAT | O_EXCL)
        guard fd >= 0 else { throw .system("cannot create a temporary file", errno) }
        return StagedOutput(temporary: name, descriptor: fd)
    }

    /// Completes a staged output whose data is all written. `flush` says when its
    /// data is flushed: `.now` before this returns, `.later` with its batch (the
    /// flush of a batch of staged outputs), `.never` not at all.
    public func finishStaging(_ staged: inout StagedOutput, flush: StagedOutput.Flush) throws(OutputError) {
        // Data reaches the disk before the name does, so a crash cannot leave a named, empty file.
        if flush == .now { try self.flush(&staged) }
        // A batch is flushed by one syncfs when there is one: then a named file need not stay open.
        if flush == .later && LinuxCalls.canSyncFileSystem { staged.finishWriting() }
        if flush == .never { staged.finishWriting() }
    }

    /// Flushes the data of a staged output (`fdatasync`) and closes it unless it has no name yet.
    public func flush(_ staged: inout StagedOutput) throws(OutputError) {
        guard staged.descriptor >= 0 else { return }
        defer { staged.finishWriting() }
        guard fdatasync(staged.descriptor) == 0 else { throw .system("cannot flush", errno) }
    }

    /// Flushes the data of a batch of staged outputs and closes the named ones: one
    /// `syncfs` of the file system of `tmp/` (every output is staged there,
    /// and placing never leaves it) — one disk flush for the batch, where an
    /// `fdatasync` per output costs one each — or, without `syncfs`, an
    /// `fdatasync` per output. Throws when the data may not have reached the disk.
    public func flush(_ batch: inout [StagedOutput]) throws(OutputError) {
        if LinuxCalls.canSyncFileSystem {
            for index in batch.indices { batch[index].finishWriting() }
            guard LinuxCalls.syncFileSystem(of: temporary.descriptor) == 0 else { throw .system("cannot flush", errno) }
        } else {
            for index in batch.indices { try flush(&batch[index]) }
        }
    }

    /// Abandons a staged output: closes it (an unnamed file is gone then) or removes its temporary file.
    public func discard(_ staged: inout StagedOutput) {
        staged.close()
        if let name = staged.temporary { temporary.remove(name) }
    }

    /// Puts a staged output in place as `relative`; on failure the temporary file is removed.
    /// Replaces an existing file only when `replace` is true.
    public func place(_ staged: StagedOutput, at relative: String, replace: Bool) throws(OutputError) {
        var staged = staged
        var ok = false
        defer { if !ok { discard(&staged) } }
        let (parent, name) = try parent(of: relative, create: true)
        let to = parent.descriptor, from = temporary.descriptor
        // `--overwrite` over a folder: said as such, by its name (it was "cannot rename into place: Is a directory").
        let overFolder = OutputError.system("\(url(of: relative)) is a folder, which --overwrite never replaces", EISDIR)
        guard let staging = staged.temporary else {
            do {
                try placeUnnamed(&staged, in: parent, as: name, replace: replace)
            } catch {
                throw replace && fileType(relative) == S_IFDIR ? overFolder : error
            }
            ok = true
            return
        }
        if replace {
            guard renameat(from, staging, to, name) == 0 else {
                let failure = errno
                throw fileType(relative) == S_IFDIR ? overFolder : .system("cannot rename into place", failure)
            }
        } else if !Self.linksDisabled, let renamed = LinuxCalls.renameNoReplace(from, staging, to, name),
                  renamed == 0 || !Self.noHardLinks(errno) && errno != EINVAL {
            // One call that fails if the name exists: no race with another writer of the same output.
            // (A file system that does not take the flag falls through to link, then to check-and-rename.)
            guard renamed == 0 else { throw errno == EEXIST ? .exists : .system("cannot move into place", errno) }
        } else {
            // linkat fails if the name exists: no race with another writer of the same output.
            let linked = !Self.linksDisabled && linkat(from, staging, to, name, 0) == 0
            let failure = Self.linksDisabled ? EPERM : errno
            if linked {
                temporary.remove(staging)
            } else if failure == EEXIST {
                throw .exists
            } else if Self.noHardLinks(failure) {
                // File systems without hard links (FAT, some FUSE mounts of buckets): check, then rename.
                // Not atomic against another writer of the same name, but shards never share an output.
                guard parent.status(of: name) == nil else { throw .exists }
                guard renameat(from, staging, to, name) == 0 else { throw .system("cannot rename into place", errno) }
                if !saidNoHardLinks.exchange(true, ordering: .relaxed) {
                    notice("\(path) has no hard links; outputs are put in place by rename after checking that "
                           + "the name is free (safe while no other program writes the same names)")
                }
            } else {
                throw .system("cannot move into place", failure)
            }
        }
        ok = true
    }

    /// Links an unnamed staged output into place and closes it: one change to
    /// the output's directory. `linkat` fails if the name exists, so no other
    /// writer's output is ever replaced; `replace` links it into the temporary
    /// directory first, then renames it over the output.
    private func placeUnnamed(_ staged: inout StagedOutput, in parent: HeldDirectory, as name: String,
                              replace: Bool) throws(OutputError) {
        if replace {
            let staging = "\(processID)-\(counter.next()).tmp"
            guard LinuxCalls.nameOpenFile(staged.descriptor, in: temporary.descriptor, as: staging) == 0 else {
                throw .system("cannot name a temporary file", errno)
            }
            guard renameat(temporary.descriptor, staging, parent.descriptor, name) == 0 else {
                let failure = errno
                temporary.remove(staging)
                throw .system("cannot rename into place", failure)
            }
        } else if LinuxCalls.nameOpenFile(staged.descriptor, in: parent.descriptor, as: name) != 0 {
            throw errno == EEXIST ? .exists : .system("cannot move into place", errno)
        }
        staged.close()
    }

    /// Whether `link` failed because the file system has no hard links (not because of the name).
    private static func noHardLinks(_ code: Int32) -> Bool {
        code == EPERM || code == EOPNOTSUPP || code == ENOSYS
    }

    /// Test hook: `KILN_TEST_NO_HARDLINKS=1` acts as a file system without hard links.
    private static let linksDisabled = ProcessInfo.processInfo.environment["KILN_TEST_NO_HARDLINKS"] == "1"
    /// Test hook: `KILN_TEST_NO_UNNAMED_FILES=1` acts as a file system without `O_TMPFILE`.
    private static let unnamedDisabled = ProcessInfo.processInfo.environment["KILN_TEST_NO_UNNAMED_FILES"] == "1"

    /// Flushes the directories holding these outputs (each once), so that their
    /// names survive a power loss as their data does.
    public func flushDirectories(of relatives: some Sequence<String>) {
        var folders = Set<String>()
        for relative in relatives {
            folders.insert(relative.lastIndex(of: "/").map { String(relative[..<$0]) } ?? "")
        }
        for folder in folders {
            if folder.isEmpty {
                root.sync()
            } else {
                (try? HeldDirectory.opening(folder, in: root, create: false))?.sync()
            }
        }
    }

    /// Writes all of `bytes` to `fd` (retrying short and interrupted writes).
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(OutputError) {
        let failure: Int32? = bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += n
            }
            return nil
        }
        if let failure { throw .system("cannot write", failure) }
    }

    /// The held folder an output goes in (its folders made, each refused when
    /// it is a symlink or not a folder), and the output's name in it.
    private func parent(of relative: String, create: Bool) throws(OutputError) -> (HeldDirectory, String) {
        guard let slash = relative.lastIndex(of: "/") else { return (root, relative) }
        let folder = try HeldDirectory.opening(String(relative[..<slash]), in: root, create: create)
        return (folder, String(relative[relative.index(after: slash)...]))
    }

    private func removeStaleTemporaries() {
        // kill(pid, 0) fails with ESRCH when no such process exists any more.
        func gone(_ pid: pid_t?) -> Bool { pid.map { $0 != getpid() && kill($0, 0) != 0 && errno == ESRCH } ?? false }
        for name in temporary.names() where gone(name.split(separator: "-").first.flatMap({ pid_t($0) })) {
            temporary.remove(name)
        }
        // A journal folder renamed away to be removed (``HeldDirectory/removeTree(_:expected:)``) by a process killed
        // before it was (a clean run's journal, with the absolute paths of its inputs, stayed for good).
        let removing = "..kiln.removed-"
        for name in root.names() where name.hasPrefix(removing) && gone(pid_t(name.dropFirst(removing.count))) {
            guard let away = try? HeldDirectory(name, in: root, create: false) else { continue }
            away.removeContents()
            unlinkat(root.descriptor, name, AT_REMOVEDIR)
        }
    }
}

/// Why an output could not be written.
public enum OutputError: Error, Equatable, CustomStringConvertible {
    /// Something appeared at the output path while the job ran.
    case exists
    /// A directory on the output path is a symlink, which is never followed.
    case symlinkInPath(String)
    /// A path component exists and is not a directory.
    case notADirectory(String)
    /// A system call failed: what was attempted and `errno`.
    case system(String, Int32)
    /// The encoded output did not decode back to the rendered image's size (`--in-place` checks before replacing).
    case unverified

    public var description: String {
        switch self {
        case .exists: return "the output appeared while the job ran"
        case .symlinkInPath(let p): return "output path goes through a symlink (\(p)); symlinks are never followed"
        case .notADirectory(let p): return "\(p) is not a directory"
        case .system(let what, let code): return "\(what): \(String(cString: strerror(code)))"
        case .unverified: return "the encoded output did not decode back to the rendered image; the input was kept"
        }
    }
}
