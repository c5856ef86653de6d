import Foundation

/// `--in-place`: an input replaced by its output, atomically, as the same file
/// to its user. The output is written to a temporary file beside the input
/// (`.NAME.kiln-PID-N.tmp`: the same file system, hidden from listings), made
/// with mode 0600, given the input's owner, group, extended attributes and mode
/// (see ``KeptAttributes``) while nobody else can open it, flushed, and renamed
/// over the input: no moment shows a half-written image, or one readable by
/// more users than the input was.
///
/// A process killed between creating and renaming leaves its temporary file;
/// the next run of the job (`kiln resume`, or the same export again) removes
/// those of its own inputs (``removeLeftovers(of:)``).
public enum InPlaceReplacement {
    private static let counter = AtomicCounter()

    /// Replaces the file at `target` (an input) by `bytes` atomically: a temporary
    /// file beside it is written, given the input's attributes and flushed,
    /// `beforeRename` runs (to journal the new content first, so a resume can
    /// tell by its checksum whether the rename happened), then it is renamed over
    /// the target and the folder is flushed. On any failure the input is kept and
    /// the temporary file removed.
    static func replace(_ target: String, with bytes: [UInt8], beforeRename: () throws -> Void) throws {
        let path = (target as NSString).deletingLastPathComponent
        let name = (target as NSString).lastPathComponent
        // Every step is relative to the folder as opened here, wherever it moves meanwhile.
        let folder = try HeldDirectory(path: path.isEmpty ? "." : path, create: false)
        // The input's attributes, through a symlink if it is one (as reading it went).
        let source = openat(folder.descriptor, name, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw OutputError.system("cannot open \(target)", errno) }
        defer { close(source) }
        var info = stat()
        guard fstat(source, &info) == 0 else { throw OutputError.system("cannot read the attributes of \(target)", errno) }
        // Another user's file this one may not write: the rename (the folder is writable) would replace it all the
        // same, and make it this user's. mogrify, which writes into the file, fails there; so does this. A file of
        // one's own made read-only (0444) is replaced, keeping its mode: it is the user's to change.
        if info.st_uid != geteuid(), faccessat(folder.descriptor, name, W_OK, AT_EACCESS) != 0 {
            throw OutputError.system("\(target) belongs to another user (uid \(info.st_uid)) and is not writable by you; in place, "
                                     + "kiln replaces only files you own or may write", EACCES)
        }
        let temporary = ".\(name).kiln-\(getpid())-\(counter.next()).tmp"
        let fd = folder.openFile(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
        guard fd >= 0 else { throw OutputError.system("cannot create \(path)/\(temporary)", errno) }
        var renamed = false
        defer { if !renamed { folder.remove(temporary) } }
        do {
            defer { close(fd) }
            try OutputDirectory.writeAll(fd, bytes)
            try KeptAttributes.copy(from: source, info, to: fd, name: target)
            // fsync, not fdatasync: the owner, mode and attributes must last as the data does.
            guard fsync(fd) == 0 else { throw OutputError.system("cannot flush \(path)/\(temporary)", errno) }
        }
        try beforeRename()
        guard renameat(folder.descriptor, temporary, folder.descriptor, name) == 0 else {
            throw OutputError.system("cannot rename over \(target)", errno)
        }
        renamed = true
        folder.sync()
    }

    /// Removes the temporary files that killed runs left beside `inputs` (an
    /// in-place job's items): in each input's folder, held, only regular files
    /// (never a symlink, never followed) named exactly `.NAME.kiln-PID-N.tmp`
    /// for an input NAME there, whose process PID no longer runs.
    ///
    /// The process check keeps the files of an in-place job of another journal
    /// that works on the same inputs right now; a dead process's number reused
    /// since keeps its leftovers until a later run. `own`: this process's instead, at the end of a run stopped
    /// with images in flight (an image abandoned after `--grace` leaves its temporary file: found beside the
    /// inputs after a Ctrl-C, 2026-11-28).
    public static func removeLeftovers(of inputs: [String], own: Bool = false) {
        let byFolder = Dictionary(grouping: inputs) { ($0 as NSString).deletingLastPathComponent }
        for (path, inputs) in byFolder {
            guard let folder = try? HeldDirectory(path: path.isEmpty ? "." : path, create: false) else { continue }
            let names = Set(inputs.map { ($0 as NSString).lastPathComponent })
            for entry in folder.names() {
                guard let (name, pid) = leftover(entry), names.contains(name),
                      own ? pid == getpid() : pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH,
                      let info = folder.status(of: entry), (info.st_mode & S_IFMT) == S_IFREG else { continue }
                folder.remove(entry)
            }
        }
    }

    /// The input name and process of a temporary name `.NAME.kiln-PID-N.tmp`, or nil for any other name.
    private static func leftover(_ entry: String) -> (name: String, pid: pid_t)? {
        guard entry.count > 5, entry.hasPrefix("."), entry.hasSuffix(".tmp") else { return nil }
        let middle = entry.dropFirst().dropLast(4)  // NAME.kiln-PID-N
        guard let marker = middle.range(of: ".kiln-", options: .backwards), marker.lowerBound > middle.startIndex else {
            return nil
        }
        let numbers = middle[marker.upperBound...].split(separator: "-", omittingEmptySubsequences: false)
        guard numbers.count == 2, numbers.allSatisfy({ !$0.isEmpty && $0.allSatisfy { "0"..."9" ~= $0 } }),
              let pid = pid_t(numbers[0]) else { return nil }
        return (String(middle[..<marker.lowerBound]), pid)
    }
}

/// An animation whose frames kiln does not read (an APNG), given in place: its default image written over the
/// only copy would lose them. The image fails; nothing is written.
struct InPlaceAnimation: Error, CustomStringConvertible {
    var description: String {
        "an animated PNG (APNG): kiln exports its default image only, and in place that would lose its frames; "
            + "the file is left as it is — export it into another folder (-o) to have its default image"
    }
}
