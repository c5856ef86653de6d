import Foundation

/// The check of SPEC §5 that every path named on the command line can be read,
/// made before anything is written, before even the output directory is made.
///
/// A path the user typed that is missing or unreadable is a mistake in the
/// command (a typo, the wrong folder): a usage error (exit 64) with nothing
/// created, not a batch that runs, fails its one image and leaves an empty
/// output folder. Paths found by the job itself — in a folder, or in a `-`
/// list — are not checked here: one that is gone by its turn fails alone and
/// the batch goes on, as any bad input does. (Rejected: checking the `-` list's
/// paths too: a list of 100,000 paths would be opened twice, and a list is data,
/// not the command line.)
public enum NamedInputs {
    /// Throws for the named paths (not `-`) that cannot be opened for reading: the first, and the others
    /// with it (before, only the first was named, and a glob with three files gone took three runs to mend).
    ///
    /// Each path is opened, not only `stat`ed: a file that exists but that this
    /// user may not read fails here too. `O_NONBLOCK` keeps a FIFO from blocking
    /// the check; folders open like files. Anything but a file or a folder (a
    /// named pipe, a socket, a device) is refused too: reading it could wait forever.
    /// - Throws: ``ExportError/unreadableInput(_:reason:others:)`` naming the paths and the reasons.
    public static func check(_ inputs: [String]) throws(ExportError) {
        let problems = inputs.filter { $0 != "-" }.compactMap { path in problem(path).map { (path, $0) } }
        guard let first = problems.first else { return }
        throw .unreadableInput(first.0, reason: first.1, others: problems.dropFirst().map { "\($0.0): \($0.1)" })
    }

    /// Why `path` cannot be read as an input, or nil when it can.
    private static func problem(_ path: String) -> String? {
        var info = stat()
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            // A socket's open says only "No such device or address": what it is, said instead.
            guard errno == ENXIO, stat(path, &info) == 0, let kind = SpecialFile.kind(info.st_mode) else { return reason }
            return "it is \(kind), not an image file or a folder"
        }
        defer { close(descriptor) }
        if fstat(descriptor, &info) == 0, info.st_mode & S_IFMT != S_IFDIR, let kind = SpecialFile.kind(info.st_mode) {
            return "it is \(kind), not an image file or a folder"
        }
        return nil
    }
}
