import Foundation

extension JobLock {
    /// Whether process `pid` of this host holds the lock of `journal` now, as the
    /// kernel's lock table (`/proc/locks`) says: the entries on the lock file's
    /// device and inode, waiters (`->`) left out. `FLOCK` entries, and `POSIX`
    /// ones too: NFS may carry an `flock` as a POSIX lock, and only kiln locks
    /// this file. False when the lock file or the table cannot be read.
    ///
    /// `kiln cancel` signals the pid `status.json` names only when this is true,
    /// so a pid that `status.json` names wrongly (a stale or crafted file, a pid
    /// reused by an unrelated process) is never hit. Rejected design: trusting
    /// ``isHeld(_:)`` plus the named pid: any process could hold the lock while
    /// another pid is named.
    public static func isHeld(_ journal: Journal, by pid: pid_t) -> Bool {
        guard pid > 0, let folder = try? journal.folder(), let info = folder.status(of: "lock"),
              (info.st_mode & S_IFMT) == S_IFREG,
              let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return false }
        // /proc/locks names a device as MAJOR:MINOR in hex (the kernel's split of st_dev, as glibc's major/minor).
        let device = UInt64(info.st_dev)
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        let file = String(major, radix: 16) + ":" + String(minor, radix: 16) + ":" + String(info.st_ino)
        return table.split(separator: "\n").contains { line in
            // "1: FLOCK  ADVISORY  WRITE 9045 fe:00:16222587 0 EOF"; a waiter reads "1: -> FLOCK ...".
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK" || fields[1] == "POSIX", let holder = pid_t(fields[4]) else { return false }
            let parts = fields[5].split(separator: ":")
            guard parts.count == 3, let major = UInt64(parts[0], radix: 16), let minor = UInt64(parts[1], radix: 16)
            else { return false }
            return holder == pid && "\(String(major, radix: 16)):\(String(minor, radix: 16)):\(parts[2])" == file
        }
    }
}
