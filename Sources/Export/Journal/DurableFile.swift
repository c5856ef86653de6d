import Foundation

/// Small crash-safe file operations for the journal.
enum DurableFile {
    /// Replaces the file `name` in `directory` with `data`: temporary file,
    /// fsync, rename, fsync of the directory — after a crash the file holds
    /// either the old or the new content. Nothing is followed through a symlink.
    static func replace(_ name: String, in directory: HeldDirectory, with data: Data, sync: Bool = true) throws {
        let temporary = name + ".\(getpid()).tmp"
        let fd = directory.openFile(temporary, O_WRONLY | O_CREAT | O_TRUNC)
        guard fd >= 0 else { throw JournalError.system("cannot create \(directory.path)/\(temporary)", errno) }
        var ok = false
        defer {
            if !ok { directory.remove(temporary) }
        }
        do {
            defer { close(fd) }
            try writeAll(fd, data)
            if sync && fsync(fd) != 0 { throw JournalError.system("cannot flush \(directory.path)/\(temporary)", errno) }
        }
        guard renameat(directory.descriptor, temporary, directory.descriptor, name) == 0 else {
            throw JournalError.system("cannot rename \(directory.path)/\(temporary)", errno)
        }
        ok = true
        if sync { directory.sync() }
    }

    /// Rewrites the existing file `name` in `directory` where it is, padding
    /// `data` with spaces to the old length: on a full disk, where
    /// ``replace(_:in:with:sync:)`` cannot make its temporary file, the blocks
    /// the file already has still take a status (JSON allows trailing spaces).
    /// Not atomic: for the live status only, which a reader that fails to parse reads again.
    static func overwrite(_ name: String, in directory: HeldDirectory, with data: Data) throws {
        // Not blocking (a named pipe there without a reader fails at once).
        let fd = directory.openFile(name, O_WRONLY | O_NONBLOCK)
        guard fd >= 0 else { throw JournalError.system("cannot open \(directory.path)/\(name)", errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw JournalError.system("cannot read \(directory.path)/\(name)", errno) }
        if let kind = SpecialFile.kind(info.st_mode) {
            throw JournalError.unreadable("\(directory.path)/\(name)", reason: "it is \(kind), not a file kiln wrote")
        }
        var padded = data
        if padded.count < Int(info.st_size) { padded.append(Data(repeating: UInt8(ascii: " "), count: Int(info.st_size) - padded.count)) }
        try writeAll(fd, padded)
        if padded.count > Int(info.st_size) { ftruncate(fd, off_t(padded.count)) }
    }

    /// Opens the file `name` in `directory` for appending (created if missing).
    /// A file whose last line was torn (a crash, a full disk) first gets its end
    /// of line, so the next record starts a line of its own and parses.
    static func openForAppending(_ name: String, in directory: HeldDirectory) throws -> Int32 {
        let fd = directory.openFile(name, O_RDWR | O_CREAT | O_APPEND | O_NONBLOCK)
        guard fd >= 0 else { throw JournalError.system("cannot open \(directory.path)/\(name)", errno) }
        var info = stat()
        let known = fstat(fd, &info) == 0
        if known, let kind = SpecialFile.kind(info.st_mode) {
            close(fd)
            throw JournalError.unreadable("\(directory.path)/\(name)", reason: "it is \(kind), not a file kiln wrote")
        }
        var last: UInt8 = 0
        if known, info.st_size > 0, pread(fd, &last, 1, info.st_size - 1) == 1, last != UInt8(ascii: "\n") {
            do {
                try writeAll(fd, Data([UInt8(ascii: "\n")]))
            } catch {
                close(fd)
                throw error
            }
        }
        return fd
    }

    /// The whole file `name` in `directory`; nil when there is none, and an error
    /// naming the file when it is there but cannot be read (a permission, an I/O error,
    /// not a regular file).
    static func contents(of name: String, in directory: HeldDirectory) throws -> Data? {
        // Not blocking: a named pipe put in the journal's place is opened at once and refused (opened waiting for
        // a writer, it held `kiln status`, `resume` and `export` for good, deaf to SIGTERM).
        let fd = directory.openFile(name, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw JournalError.system("cannot read \(directory.path)/\(name)", errno)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw JournalError.system("cannot read \(directory.path)/\(name)", errno) }
        if let kind = SpecialFile.kind(info.st_mode) {
            throw JournalError.unreadable("\(directory.path)/\(name)", reason: "it is \(kind), not a file kiln wrote")
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw JournalError.system("cannot read \(directory.path)/\(name)", errno) }
            if n == 0 { return data }
            data.append(contentsOf: buffer[..<n])
        }
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
            if !dir.contains("/.kiln"), access(dir, F_OK) != 0 { return "there is no folder \(dir)" }
            if !dir.contains("/.kiln"), !isFolder(dir) { return "\(dir) is not a folder" }
            return "\(dir) holds no kiln job (no .kiln/job.json; a job that finished without failures or conflicts removes it)"
        case .unreadable(let path, let reason): return "cannot read the journal \(path): \(reason)"
        case .system(let what, let code): return "\(what): \(String(cString: strerror(code)))"
        }
    }
}
