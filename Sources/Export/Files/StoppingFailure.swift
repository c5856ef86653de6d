import Foundation

/// The failures that are not the image's fault, which every image after it would meet too: the file system holding
/// the outputs or the journal takes nothing more — full (`ENOSPC`), over quota (`EDQUOT`) or read-only (`EROFS`) —
/// or the output folder (or its `.kiln`) was removed while the job ran. The job stops (exit 75) with one message,
/// instead of failing the rest of the batch one by one, and the journal keeps only what truly reached the disk.
enum StoppingFailure {
    /// Whether `code` is one of those failures.
    static func isFull(_ code: Int32) -> Bool {
        code == ENOSPC || code == EDQUOT || code == EROFS
    }

    /// Why the job stops, when `error` is one of those failures; nil for any other error. `directory`: the job's
    /// output folder, which `kiln resume` is given; `place`: the folder whose file system failed, when not that one
    /// (in place, an input's: "the file system of ." blamed the journal's disk for the inputs' full one).
    static func reason(_ error: any Error, in directory: OutputDirectory, place: String? = nil) -> String? {
        let output = directory.path
        let code: Int32
        switch error {
        case OutputError.system(_, let failure): code = failure
        case JournalError.system(_, let failure): code = failure
        default: return nil
        }
        // Removed while the job ran: a 156-image run said 112 failures, each "cannot create a temporary file". Asked
        // only of a name that is not there (a file system whose folders all say no link would otherwise stop a job
        // for any failure).
        if place == nil, code == ENOENT, let removed = directory.removedFolder {
            // Only the staging folder: the journal stands, and a resume makes the folder again.
            guard removed.folder == .staging else {
                return "stopped: \(removed.path) was removed while the job ran (\(error)); what was recorded went with "
                    + "it: export again to make the images not written"
            }
            return "stopped: \(removed.path) was removed while the job ran (\(error)); the images not recorded are left "
                + "for `kiln resume \(output)`"
        }
        guard isFull(code) else { return nil }
        let what = code == EROFS ? "is read-only" : code == EDQUOT ? "is over its quota" : "is full"
        // A read-only file system has no room to make: it must be made writable (said so: "once there is room" was
        // advice no resume on it could follow).
        return "stopped: the file system of \(place ?? output) \(what) (\(error)); the images not recorded are left for "
            + "`kiln resume \(output)` once " + (code == EROFS ? "it is writable" : "there is room")
    }
}
