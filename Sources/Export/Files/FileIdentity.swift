import Foundation

/// A file's identity on disk (device and inode), so that the same file reached
/// through different paths, symlinks or hard links compares equal.
struct FileIdentity: Hashable, Sendable, CustomStringConvertible {
    let device: UInt64
    let inode: UInt64

    /// The identity of the file `path` names (following symlinks), or nil when it does not exist.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The identity of what sits at `path` itself, a symbolic link not followed, or nil when nothing does.
    init?(entryAt path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The identity of the file `info` describes.
    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// `DEVICE-INODE`, in decimal.
    var description: String { "\(device)-\(inode)" }
}

/// Whether `path` names a folder (links followed).
func isFolder(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
}

/// One version of a file's content, as far as `stat` tells: its identity, size,
/// modification time and change time. A `cp` over the file rewrites the same
/// inode (its size, modification and change times move on); a `mv` over it puts
/// another inode at its path. Either makes a different version.
///
/// The kernel stamps times from a coarse clock (a few milliseconds): a rewrite
/// to the very same size within one tick of the version taken could go unseen.
/// No `stat` field tells more; a checksum would mean reading the file twice.
struct FileVersion: Equatable, Sendable, CustomStringConvertible {
    let identity: FileIdentity
    let size: Int
    /// Modification time, in nanoseconds since 1970.
    let modified: Int
    /// Status change time (ctime), in nanoseconds since 1970: moves on with any write or metadata change.
    let changed: Int

    /// The version `info` describes.
    init(_ info: stat) {
        identity = FileIdentity(info)
        size = Int(info.st_size)
        modified = Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)
        changed = Int(info.st_ctim.tv_sec) * 1_000_000_000 + Int(info.st_ctim.tv_nsec)
    }

    /// The version of the file `path` names now (following symlinks), or nil when it does not exist.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// `DEVICE-INODE-CTIME` (nanoseconds), in decimal: this very file, as it is. Device and inode
    /// alone name a place a later file may take (ext4 gives a removed file's inode number to the
    /// next one made); the change time moves on with any write, rename over it or new link.
    var description: String { "\(identity)-\(changed)" }

    /// Whether this is another version than `recorded` (a ``description``) names: another inode or change time.
    /// The device is not compared: a file on a network file system has another device number on each host that
    /// mounts it (a shard resumed on another node). False where `recorded` is no such form.
    func differs(from recorded: String) -> Bool {
        let parts = recorded.split(separator: "-")
        guard parts.count == 3, let inode = UInt64(parts[1]), let changed = Int(parts[2]) else { return false }
        return inode != identity.inode || changed != self.changed
    }
}
