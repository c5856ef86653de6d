import Foundation

/// The lock a running job holds on its output directory (`.kiln/lock`, an
/// `flock`): a second job cannot run in the same directory, and `kiln status`
/// and `kiln cancel` can tell a live job from a dead one even after `kill -9`
/// (the kernel releases the lock with the process).
public final class JobLock: Sendable {
    private let fd: Int32

    /// Takes the lock, or returns nil when another process holds it.
    public init?(journal: Journal) throws {
        let fd = try journal.folder(create: true).openLock("lock", create: true)
        guard fd >= 0 else { throw JournalError.system("cannot open \(journal.directory)/lock", errno) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        self.fd = fd
    }

    /// Whether some process holds the lock of this journal now.
    public static func isHeld(_ journal: Journal) -> Bool {
        guard let folder = try? journal.folder() else { return false }
        let fd = folder.openLock("lock", create: false)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        return true
    }

    deinit {
        close(fd)  // releases the flock
    }
}
