import Foundation

/// An output written to its temporary file in `.kiln/tmp/` and not yet put in
/// place (see ``OutputDirectory/stage(_:flush:)``).
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

    /// The temporary file's path.
    public let temporary: String
    /// The open file while a flush is pending, else -1.
    public private(set) var descriptor: Int32

    init(temporary: String, descriptor: Int32) {
        self.temporary = temporary
        self.descriptor = descriptor
    }

    /// Closes the file (once).
    mutating func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }
}
