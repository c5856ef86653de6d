/// How hard a job works to make what it finished survive a crash
/// (`kiln export --durability`). Every level keeps an output path either absent
/// or holding a complete PNG after `kill -9`, and `kiln resume` verifies the
/// size and CRC-32 of every recorded output, redoing any that does not match.
public enum Durability: String, Sendable, CaseIterable {
    /// One `fdatasync` of each output before it is put in place and one of the
    /// journal per image, before the job moves on (the behaviour before group commit).
    /// Survives `kill -9` and power loss, losing at most the images in flight.
    case full
    /// Group commit: finished images are made durable together, up to 128 of
    /// them or 100 ms after the first, whichever comes first: the outputs' data
    /// is flushed (one `syncfs` of their file system), then they are put in
    /// place, their records appended, and their directories and the journal
    /// flushed once for the whole batch. An image is reported finished only then.
    /// Survives `kill -9` and power loss, losing at most the last batch (redone on resume).
    case batch
    /// Nothing is ever flushed: for scratch outputs. Survives `kill -9` (the
    /// kernel still holds every write); after a power loss or an operating system
    /// crash, outputs and records may be lost or hold garbage — resume's checks
    /// redo a recorded output that is damaged, but an unrecorded damaged one
    /// counts as a conflict (`--overwrite` replaces it).
    case none

    /// Whether outputs and records are flushed at all.
    var syncs: Bool { self != .none }
}
