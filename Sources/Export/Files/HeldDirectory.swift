import Foundation

/// A directory held open by descriptor for the life of a job, so that every
/// file operation in it is relative to the directory itself (`openat`,
/// `linkat`, `renameat`, `unlinkat`), never to a path looked up again.
///
/// A job's output folder renamed while the job runs keeps receiving its outputs
/// where it now is; a symlink put in its old place, or in place of `.kiln/` or
/// `.kiln/tmp/`, is never followed: subfolders are opened with `O_NOFOLLOW`,
/// and removal (`unlinkat`) removes a symlink, not what it points to.
///
/// Rejected design: checking paths with `lstat` before each use. Between the
/// check and the use the path can change (a rename, a symlink); a descriptor
/// cannot.
// Unchecked: the only stored state is an immutable descriptor and path; the kernel serializes operations on them.
public final class HeldDirectory: @unchecked Sendable {
    /// The open directory.
    public let descriptor: Int32
    /// Its path when it was opened (for messages; never used to reach it again).
    public let path: String

    /// Opens the directory `path` (created, with its missing parents, when
    /// `create`). The path itself may go through symlinks — it is what the user named.
    public init(path: String, create: Bool) throws(OutputError) {
        if create { try Self.makeDirectories(path) }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .system("cannot open directory \(path)", errno) }
        descriptor = fd
        self.path = path
    }

    /// Opens the directory `path` itself never through a symlink (`O_NOFOLLOW` on
    /// its last component: a symlink there is `.symlinkInPath`), created first when
    /// `create`, with `mode` (missing parents too). For a folder kiln must own
    /// (the machine's slot folder, see ``RuntimeFolder``): the caller then checks
    /// the held folder's owner and mode with ``identity``, which no later swap of
    /// the path can change.
    public init(refusingSymlink path: String, create: Bool, mode: mode_t) throws(OutputError) {
        if create {
            let parent = (path as NSString).deletingLastPathComponent
            if !parent.isEmpty && parent != path { try Self.makeDirectories(parent, mode: mode) }
            // mkdir never follows a symlink in the last place (it fails with EEXIST), so nothing is made through one.
            if mkdir(path, mode) != 0 && errno != EEXIST { throw .system("cannot create directory \(path)", errno) }
        }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let failure = errno
            var info = stat()
            let isLink = lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
            // O_NOFOLLOW on a symlink fails with ELOOP; with O_DIRECTORY, some kernels say ENOTDIR.
            if failure == ELOOP || failure == ENOTDIR && isLink { throw .symlinkInPath(path) }
            if failure == ENOTDIR { throw .notADirectory(path) }
            throw .system("cannot open directory \(path)", failure)
        }
        descriptor = fd
        self.path = path
    }

    /// Opens the subdirectory `name` of `parent` (created first when `create`, with `mode`),
    /// refusing a symlink in its place.
    public init(_ name: String, in parent: HeldDirectory, create: Bool, mode: mode_t = 0o755) throws(OutputError) {
        let path = parent.path + "/" + name
        if create && mkdirat(parent.descriptor, name, mode) != 0 && errno != EEXIST {
            throw .system("cannot create directory \(path)", errno)
        }
        let fd = openat(parent.descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let failure = errno
            // O_NOFOLLOW on a symlink fails with ELOOP; with O_DIRECTORY, some kernels say ENOTDIR.
            if failure == ELOOP || failure == ENOTDIR && parent.isSymlink(name) { throw .symlinkInPath(path) }
            if failure == ENOTDIR { throw .notADirectory(path) }
            throw .system("cannot open directory \(path)", failure)
        }
        descriptor = fd
        self.path = path
    }

    /// Opens a chain of subdirectories (`a/b/c`), each refused when it is a symlink.
    public static func opening(_ relative: String, in root: HeldDirectory, create: Bool) throws(OutputError) -> HeldDirectory {
        var current = root
        for component in relative.split(separator: "/") {
            current = try HeldDirectory(String(component), in: current, create: create)
        }
        return current
    }

    deinit {
        close(descriptor)
    }

    /// Opens the lock file `name` here (created when `create`), never through a symlink.
    func openLock(_ name: String, create: Bool) -> Int32 {
        openFile(name, O_RDWR | (create ? O_CREAT : 0))
    }

    /// Whether the directory was removed (no name links to it any more) while held.
    var isRemoved: Bool {
        var info = stat()
        return fstat(descriptor, &info) == 0 && info.st_nlink == 0
    }

    /// Whether `name` in this directory is a symlink (not followed).
    func isSymlink(_ name: String) -> Bool {
        var info = stat()
        return fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    /// `lstat` of `name` in this directory, or nil when nothing is there.
    func status(of name: String) -> stat? {
        var info = stat()
        return fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? info : nil
    }

    /// The names in this directory (not `.` and `..`), as the system lists them.
    func names() -> [String] {
        // fdopendir takes over the descriptor it is given: a duplicate keeps ours open.
        let copy = dup(descriptor)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Opens the file `name` here; never follows a symlink in its place. Returns the descriptor or -1 with `errno`.
    func openFile(_ name: String, _ flags: Int32, mode: mode_t = 0o644) -> Int32 {
        openat(descriptor, name, flags | O_NOFOLLOW | O_CLOEXEC, mode)
    }

    /// Removes the file (or symlink) `name` here; returns `unlinkat`'s result.
    @discardableResult
    func remove(_ name: String) -> Int32 {
        unlinkat(descriptor, name, 0)
    }

    /// Removes the subdirectory `name` and everything in it, never following a
    /// symlink (a symlink met is removed itself), and only while `name` is still
    /// the directory `expected` was opened on (nothing put in its place is touched).
    ///
    /// Renamed away first (`.NAME.removed-PID`), in one step: a process waiting for a lock in it (a
    /// second job on the same folder) then finds its folder gone from its name before anything of it
    /// is deleted, never a half-removed folder in its place (``holds(_:)``).
    func removeTree(_ name: String, expected: HeldDirectory) {
        guard let here = status(of: name), let held = expected.identity,
              (here.st_mode & S_IFMT) == S_IFDIR, here.st_dev == held.st_dev, here.st_ino == held.st_ino else { return }
        let away = ".\(name).removed-\(getpid())"
        let gone = renameat(descriptor, name, descriptor, away) == 0 ? away : name
        expected.removeContents()
        unlinkat(descriptor, gone, AT_REMOVEDIR)
    }

    /// Whether the directory named `name` in this one is `held`, the very one (device and inode): false
    /// when it was removed or renamed, or another one took its name.
    func holds(_ name: String, _ held: HeldDirectory) -> Bool {
        guard let here = status(of: name), let identity = held.identity else { return false }
        return identity.st_nlink > 0 && here.st_dev == identity.st_dev && here.st_ino == identity.st_ino
    }

    /// Removes everything in this directory but the entries `kept`, subdirectories included, without following symlinks.
    func removeContents(except kept: Set<String> = []) {
        for name in names() where !kept.contains(name) {
            guard let info = status(of: name) else { continue }
            if (info.st_mode & S_IFMT) == S_IFDIR, let sub = try? HeldDirectory(name, in: self, create: false) {
                sub.removeContents()
                unlinkat(descriptor, name, AT_REMOVEDIR)
            } else {
                unlinkat(descriptor, name, 0)
            }
        }
    }

    /// `fstat` of the held directory.
    var identity: stat? {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? info : nil
    }

    /// Flushes the directory's entries (`fsync`), so names made in it survive a power loss.
    func sync() {
        fsync(descriptor)
    }

    /// `mkdir -p` (each folder made with `mode`), failing with the directory that could not be made and the system's reason.
    private static func makeDirectories(_ directory: String, mode: mode_t = 0o755) throws(OutputError) {
        if mkdir(directory, mode) == 0 { return }
        var failure = errno
        if failure == ENOENT {
            let parent = (directory as NSString).deletingLastPathComponent
            if !parent.isEmpty && parent != directory {
                try makeDirectories(parent, mode: mode)
                if mkdir(directory, mode) == 0 { return }
                failure = errno
            }
        }
        var info = stat()
        // A symlink to a directory passes here; a caller that refuses one opens with O_NOFOLLOW after.
        if failure == EEXIST && stat(directory, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR { return }
        // A symbolic link to nothing: said so, with where it points ("Not a directory" named neither).
        if failure == EEXIST, let target = try? FileManager.default.destinationOfSymbolicLink(atPath: directory),
           stat(directory, &info) != 0 {
            throw .system("cannot create directory \(directory): it is a symbolic link to \(target), which does not exist",
                          ENOENT)
        }
        throw .system("cannot create directory \(directory)", failure == EEXIST ? ENOTDIR : failure)
    }
}
