import Foundation

/// The failures that mean the file system holding the outputs or the journal
/// takes nothing more: full (`ENOSPC`), over quota (`EDQUOT`) or read-only
/// (`EROFS`). They are not the image's fault, and every image after it would
/// meet them too: the job stops (exit 75, resumable) with one message, instead
/// of failing the rest of the batch one by one, and the journal keeps only what
/// truly reached the disk.
enum StorageFull {
    /// Whether `code` is one of those failures.
    static func isFull(_ code: Int32) -> Bool {
        code == ENOSPC || code == EDQUOT || code == EROFS
    }

    /// Why the job stops, when `error` is one of those failures; nil for any other error. `output`: the folder
    /// `kiln resume` is given; `place`: the folder whose file system failed, when not that one (in place, an
    /// input's: "the file system of ." blamed the journal's disk for the inputs' full one).
    static func reason(_ error: any Error, output: String, place: String? = nil) -> String? {
        let code: Int32
        switch error {
        case OutputError.system(_, let failure): code = failure
        case JournalError.system(_, let failure): code = failure
        default: return nil
        }
        guard isFull(code) else { return nil }
        let what = code == EROFS ? "is read-only" : code == EDQUOT ? "is over its quota" : "is full"
        // A read-only file system has no room to make: it must be made writable (said so: "once there is room" was
        // advice no resume on it could follow).
        return "stopped: the file system of \(place ?? output) \(what) (\(error)); the images not recorded are left for "
            + "`kiln resume \(output)` once " + (code == EROFS ? "it is writable" : "there is room")
    }
}
