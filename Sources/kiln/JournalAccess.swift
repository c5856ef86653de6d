import Foundation

/// Whether the journal of an output directory can be opened at all, told
/// apart from there being none.
///
/// `Journal.job()` reads `job.json` with `FileManager.contents(atPath:)`,
/// which answers nil for a missing file and an unreadable one alike, so a
/// journal the user may not read (`chmod 000 OUT/.kiln`, another user's job)
/// was reported as "holds no kiln job". `open(2)` says which it is. `kiln
/// status` asks here first; the same distinction belongs in `Journal.job()`
/// itself, for `resume` and `cancel` too (rejected here: a second reader of
/// the journal in the CLI, which would drift from the journal's own).
enum JournalAccess {
    /// Why `directory/.kiln/job.json` cannot be read (the path and the system's
    /// reason), or nil when it can, or when it is not there (no job: `ENOENT`,
    /// `ENOTDIR`), which the journal reports itself.
    static func problem(in directory: String) -> String? {
        let path = directory + "/.kiln/job.json"
        // Non-blocking: a FIFO in the journal's place must not hang `kiln status`.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd < 0 else {
            close(fd)
            return nil
        }
        let code = errno
        guard code != ENOENT && code != ENOTDIR else { return nil }
        return "cannot read the journal \(path): \(String(cString: strerror(code)))"
    }
}
