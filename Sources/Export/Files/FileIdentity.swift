import Foundation

/// A file's identity on disk (device and inode), so that the same file reached
/// through different paths, symlinks or hard links compares equal.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    /// The identity of the file `path` names (following symlinks), or nil when it does not exist.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
