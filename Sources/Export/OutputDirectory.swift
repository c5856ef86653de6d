import Foundation
import Synchronization

/// The output directory of a job, and the only place that writes into it.
///
/// Every output is written to a file with no name (`O_TMPFILE` on the file
/// system of `.kiln/tmp/`), flushed (alone, with its batch, or not at all: see
/// ``Durability``), and linked into place: one change to the output's
/// directory, and a killed process leaves nothing behind. Where the file system
/// makes no unnamed files, a temporary file under `.kiln/tmp/` (hidden from
/// listings of the outputs) is renamed into place instead. Either way an output
/// path either does not exist or holds a complete PNG, even if the process is killed. Directories are created component by component
/// and a symlink met on the way is refused, so outputs never land outside the
/// output directory; `rename` replaces a symlinked output rather than following it.
public final class OutputDirectory: Sendable {
    /// The output directory as given.
    public let path: String
    /// The job's private folder inside it (journal, temporary files).
    public let stateDirectory: String
    private let temporaryDirectory: String
    private let counter = AtomicCounter()
    /// Called once, the first time an output is put in place without a hard link.
    private let notice: @Sendable (String) -> Void
    private let saidNoHardLinks = Atomic<Bool>(false)
    /// This process, which names its temporary files (read once: the names are made per image).
    private let processID = getpid()
    /// Whether outputs are staged as unnamed files (see ``stage(_:flush:)``).
    private let stagesUnnamed: Bool
    /// Whether the directory held nothing but the job's own `.kiln` when opened:
    /// then no output path can be occupied but by this job (which never writes one
    /// twice, and whose placing fails rather than replace), so none needs a `stat` first.
    public let startedEmpty: Bool

    /// Opens (creating if needed) the output directory and its `.kiln/tmp`, and
    /// removes temporary files left by processes that no longer run.
    ///
    /// A shard of a job in a shared directory passes its own `temporaryDirectory`
    /// (`.kiln/shards/K-of-N/tmp`) and `removesStale: false`, then calls
    /// ``removeTemporaries()`` once it holds the shard's lock: a pid says nothing
    /// about processes on other hosts, whose files the pid check would delete.
    /// `notice` is told once when the file system has no hard links.
    public init(path: String, temporaryDirectory: String? = nil, removesStale: Bool = true,
                notice: @escaping @Sendable (String) -> Void = { _ in }) throws(ExportError) {
        self.path = path
        stateDirectory = path + "/.kiln"
        self.temporaryDirectory = temporaryDirectory ?? stateDirectory + "/tmp"
        self.notice = notice
        do throws(OutputError) {
            try Self.makeDirectories(self.temporaryDirectory)
        } catch {
            throw .badOutputDirectory(path, reason: error.description)
        }
        startedEmpty = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [""]) == [".kiln"]
        stagesUnnamed = !Self.linksDisabled && !Self.unnamedDisabled
            && Self.makesUnnamedFiles(in: self.temporaryDirectory, probeName: "\(processID)-probe.tmp")
        if removesStale { removeStaleTemporaries() }
    }

    /// Whether the file system of `directory` makes unnamed files and links
    /// them by `/proc/self/fd` (tried once, with a probe linked and removed).
    private static func makesUnnamedFiles(in directory: String, probeName: String) -> Bool {
        let fd = open(directory, LinuxCalls.openUnnamed | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let probe = directory + "/" + probeName
        guard LinuxCalls.nameOpenFile(fd, as: probe) == 0 else { return false }
        unlink(probe)
        return true
    }

    /// Removes every file in the temporary directory: for a shard that holds its
    /// lock, whatever is there was left by a dead process (of any host).
    public func removeTemporaries() {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporaryDirectory)) ?? [] {
            unlink(temporaryDirectory + "/" + name)
        }
    }

    /// The path of an output given relative to this directory (an absolute one, as
    /// `--in-place` records its inputs, stays as it is).
    public func url(of relative: String) -> String { relative.hasPrefix("/") ? relative : path + "/" + relative }

    /// Whether something (a file, a directory, a symlink, even dangling) sits at this output path.
    public func exists(_ relative: String) -> Bool {
        var info = stat()
        return lstat(url(of: relative), &info) == 0
    }

    /// Replaces the file at `target` (an input, for `--in-place`) by `bytes`
    /// atomically: a temporary file beside it (same file system) is written and
    /// flushed, `beforeRename` runs (to journal the new content first, so a
    /// resume can tell by its checksum whether the rename happened), then it is
    /// renamed over the target and the directory is flushed.
    public func replace(_ target: String, with bytes: [UInt8], beforeRename: () throws -> Void) throws {
        let directory = (target as NSString).deletingLastPathComponent
        let name = (target as NSString).lastPathComponent
        let temporary = (directory.isEmpty ? "." : directory) + "/.\(name).kiln-\(getpid())-\(counter.next()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw OutputError.system("cannot create \(temporary)", errno) }
        var ok = false
        defer { if !ok { unlink(temporary) } }
        do {
            defer { close(fd) }
            try Self.writeAll(fd, bytes)
            guard fdatasync(fd) == 0 else { throw OutputError.system("cannot flush \(temporary)", errno) }
        }
        try beforeRename()
        guard rename(temporary, target) == 0 else { throw OutputError.system("cannot rename over \(target)", errno) }
        ok = true
        let dirfd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirfd >= 0 {
            fsync(dirfd)
            close(dirfd)
        }
    }

    /// The bytes of the output `relative` when it is a regular file (a symlink is never followed), else nil.
    public func regularFileContents(_ relative: String) -> [UInt8]? {
        let fd = open(url(of: relative), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
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
        let staged = try stage(bytes, flush: .now)
        try place(staged, at: relative, replace: replace)
    }

    /// Writes `bytes` to a new unnamed file (or, where the file system makes
    /// none, a temporary file under `.kiln/tmp/`), to be put in place by
    /// ``place(_:at:replace:)``. `flush` says when its data is flushed: `.now`
    /// before this returns, `.later` with its batch (the flush of a batch of
    /// staged outputs), `.never` not at all.
    public func stage(_ bytes: [UInt8], flush: StagedOutput.Flush) throws(OutputError) -> StagedOutput {
        var staged: StagedOutput
        // An unnamed file stays open until placed (up to a batch of them): when
        // no descriptor is left for one, a named file, closed sooner, serves.
        let unnamed = stagesUnnamed ? open(temporaryDirectory, LinuxCalls.openUnnamed | O_WRONLY | O_CLOEXEC, 0o644) : -1
        if unnamed >= 0 {
            staged = StagedOutput(temporary: nil, descriptor: unnamed)
        } else {
            let temporary = temporaryDirectory + "/\(processID)-\(counter.next()).tmp"
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw .system("cannot create a temporary file", errno) }
            staged = StagedOutput(temporary: temporary, descriptor: fd)
        }
        do throws(OutputError) {
            try Self.writeAll(staged.descriptor, bytes)
            // Data reaches the disk before the name does, so a crash cannot leave a named, empty file.
            if flush == .now { try self.flush(&staged) }
            // A batch is flushed by one syncfs when there is one: then a named file need not stay open.
            if flush == .later && LinuxCalls.canSyncFileSystem { staged.finishWriting() }
        } catch {
            discard(&staged)
            throw error
        }
        if flush == .never { staged.finishWriting() }
        return staged
    }

    /// Flushes the data of a staged output (`fdatasync`) and closes it unless it has no name yet.
    public func flush(_ staged: inout StagedOutput) throws(OutputError) {
        guard staged.descriptor >= 0 else { return }
        defer { staged.finishWriting() }
        guard fdatasync(staged.descriptor) == 0 else { throw .system("cannot flush", errno) }
    }

    /// Flushes the data of a batch of staged outputs and closes the named ones: one
    /// `syncfs` of the file system of `.kiln/tmp` (every output is staged there,
    /// and placing never leaves it) — one disk flush for the batch, where an
    /// `fdatasync` per output costs one each — or, without `syncfs`, an
    /// `fdatasync` per output. Throws when the data may not have reached the disk.
    public func flush(_ batch: inout [StagedOutput]) throws(OutputError) {
        if LinuxCalls.canSyncFileSystem {
            let fd = open(temporaryDirectory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else { throw .system("cannot open \(temporaryDirectory)", errno) }
            defer { close(fd) }
            for index in batch.indices { batch[index].finishWriting() }
            guard LinuxCalls.syncFileSystem(of: fd) == 0 else { throw .system("cannot flush", errno) }
        } else {
            for index in batch.indices { try flush(&batch[index]) }
        }
    }

    /// Abandons a staged output: closes it (an unnamed file is gone then) or removes its temporary file.
    public func discard(_ staged: inout StagedOutput) {
        staged.close()
        if let temporary = staged.temporary { unlink(temporary) }
    }

    /// Puts a staged output in place as `relative`; on failure the temporary file is removed.
    /// Replaces an existing file only when `replace` is true.
    public func place(_ staged: StagedOutput, at relative: String, replace: Bool) throws(OutputError) {
        var staged = staged
        var ok = false
        defer { if !ok { discard(&staged) } }
        try makeParents(of: relative)
        let destination = url(of: relative)
        guard let temporary = staged.temporary else {
            try placeUnnamed(&staged, at: destination, replace: replace)
            ok = true
            return
        }
        if replace {
            guard rename(temporary, destination) == 0 else { throw .system("cannot rename into place", errno) }
        } else if !Self.linksDisabled, let renamed = LinuxCalls.renameNoReplace(temporary, destination),
                  renamed == 0 || !Self.noHardLinks(errno) && errno != EINVAL {
            // One call that fails if the name exists: no race with another writer of the same output.
            // (A file system that does not take the flag falls through to link, then to check-and-rename.)
            guard renamed == 0 else { throw errno == EEXIST ? .exists : .system("cannot move into place", errno) }
        } else {
            // link() fails if the name exists: no race with another writer of the same output.
            let linked = !Self.linksDisabled && link(temporary, destination) == 0
            let failure = Self.linksDisabled ? EPERM : errno
            if linked {
                unlink(temporary)
            } else if failure == EEXIST {
                throw .exists
            } else if Self.noHardLinks(failure) {
                // File systems without hard links (FAT, some FUSE mounts of buckets): check, then rename.
                // Not atomic against another writer of the same name, but shards never share an output.
                guard !exists(relative) else { throw .exists }
                guard rename(temporary, destination) == 0 else { throw .system("cannot rename into place", errno) }
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
    private func placeUnnamed(_ staged: inout StagedOutput, at destination: String, replace: Bool) throws(OutputError) {
        if replace {
            let temporary = temporaryDirectory + "/\(processID)-\(counter.next()).tmp"
            guard LinuxCalls.nameOpenFile(staged.descriptor, as: temporary) == 0 else {
                throw .system("cannot name a temporary file", errno)
            }
            guard rename(temporary, destination) == 0 else {
                let failure = errno
                unlink(temporary)
                throw .system("cannot rename into place", failure)
            }
        } else if LinuxCalls.nameOpenFile(staged.descriptor, as: destination) != 0 {
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
        var directories = Set<String>()
        for relative in relatives {
            let full = url(of: relative)
            let slash = full.lastIndex(of: "/")
            directories.insert(slash.map { String(full[..<$0]) } ?? ".")
        }
        for directory in directories {
            let fd = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if fd >= 0 {
                fsync(fd)
                close(fd)
            }
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(OutputError) {
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

    private func makeParents(of relative: String) throws(OutputError) {
        var current = path
        for component in relative.split(separator: "/").dropLast() {
            current += "/" + component
            var info = stat()
            if lstat(current, &info) == 0 {
                if (info.st_mode & S_IFMT) == S_IFLNK { throw .symlinkInPath(current) }
                if (info.st_mode & S_IFMT) != S_IFDIR { throw .notADirectory(current) }
            } else if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw .system("cannot create directory \(current)", errno)
            }
        }
    }

    private func removeStaleTemporaries() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporaryDirectory)) ?? []
        for name in names {
            guard let pid = name.split(separator: "-").first.flatMap({ pid_t($0) }) else { continue }
            // kill(pid, 0) fails with ESRCH when no such process exists any more.
            if pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH {
                unlink(temporaryDirectory + "/" + name)
            }
        }
    }

    /// `mkdir -p`, failing with the directory that could not be made and the system's reason.
    private static func makeDirectories(_ directory: String) throws(OutputError) {
        if mkdir(directory, 0o755) == 0 { return }
        var failure = errno
        if failure == ENOENT {
            let parent = (directory as NSString).deletingLastPathComponent
            if !parent.isEmpty && parent != directory {
                try makeDirectories(parent)
                if mkdir(directory, 0o755) == 0 { return }
                failure = errno
            }
        }
        var info = stat()
        if failure == EEXIST && stat(directory, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR { return }
        throw .system("cannot create directory \(directory)", failure == EEXIST ? ENOTDIR : failure)
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
