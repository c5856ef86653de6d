import Foundation

/// An output written but not yet put in place (see ``OutputDirectory/stage(_:flush:)``):
/// a file with no name, open until it is linked into place (where the file
/// system makes those: `O_TMPFILE`), or a temporary file in the job's `tmp/`.
public struct StagedOutput: Sendable {
    /// When a staged output's data is flushed to disk.
    public enum Flush: Sendable {
        /// Before staging returns (one `fdatasync` per output, as `--durability full`).
        case now
        /// With the rest of its batch, by the commit (`--durability batch`): one `syncfs`
        /// for the batch, or, where there is none, an `fdatasync` of each file (kept open until then).
        case later
        /// Never (`--durability none`).
        case never
    }

    /// The temporary file's name in the job's held `tmp/`, or nil for a file with no name.
    public let temporary: String?
    /// The open file while it has no name or a flush is pending, else -1.
    public private(set) var descriptor: Int32

    init(temporary: String?, descriptor: Int32) {
        self.temporary = temporary
        self.descriptor = descriptor
    }

    /// Whether the file has no name yet (it lives only while `descriptor` is open).
    var isUnnamed: Bool { temporary == nil }

    /// Closes the file once nothing more is written or flushed through it,
    /// unless it has no name yet (closing would delete it).
    mutating func finishWriting() {
        if !isUnnamed { close() }
    }

    /// Closes the file (once). An unnamed file is gone then.
    mutating func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }
}
