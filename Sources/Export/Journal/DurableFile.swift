import Foundation

/// Small crash-safe file operations for the journal.
enum DurableFile {
    /// Replaces `path` with `data`: temporary file, fsync, rename, fsync of the
    /// directory — after a crash the file holds either the old or the new content.
    static func replace(_ path: String, with data: Data, sync: Bool = true) throws {
        let temporary = path + ".\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw JournalError.system("cannot create \(temporary)", errno) }
        var ok = false
        defer {
            if !ok { unlink(temporary) }
        }
        do {
            defer { close(fd) }
            try writeAll(fd, data)
            if sync && fsync(fd) != 0 { throw JournalError.system("cannot flush \(temporary)", errno) }
        }
        guard rename(temporary, path) == 0 else { throw JournalError.system("cannot rename \(temporary)", errno) }
        ok = true
        if sync { syncDirectory(of: path) }
    }

    /// Opens `path` for appending (created if missing).
    static func openForAppending(_ path: String) throws -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw JournalError.system("cannot open \(path)", errno) }
        return fd
    }

    /// Appends `data` to the open file `fd` (named `path` in errors) in one write,
    /// then flushes it to disk when `flush` is true.
    static func append(_ fd: Int32, _ data: Data, path: String, flush: Bool) throws {
        try writeAll(fd, data)
        if flush && fdatasync(fd) != 0 { throw JournalError.system("cannot flush \(path)", errno) }
    }

    private static func writeAll(_ fd: Int32, _ data: Data) throws {
        let failure: Int32? = data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += n
            }
            return nil
        }
        if let failure { throw JournalError.system("cannot write", failure) }
    }

    private static func syncDirectory(of path: String) {
        let dir = (path as NSString).deletingLastPathComponent
        let fd = open(dir.isEmpty ? "." : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }
}

/// Why the journal could not be read or written.
public enum JournalError: Error, CustomStringConvertible {
    /// No job was ever started in this directory.
    case noJob(String)
    /// The journal exists but cannot be understood.
    case unreadable(String, reason: String)
    /// A system call failed.
    case system(String, Int32)

    public var description: String {
        switch self {
        case .noJob(let dir):
            return "\(dir) holds no kiln job (no .kiln/job.json; a job that finished without failures removes it)"
        case .unreadable(let path, let reason): return "cannot read the journal \(path): \(reason)"
        case .system(let what, let code): return "\(what): \(String(cString: strerror(code)))"
        }
    }
}
