import Foundation

/// Linux calls that Swift's Glibc module does not import (glibc declares them
/// only under `_GNU_SOURCE`, or in `<sys/xattr.h>`, which the module leaves
/// out), looked up once at run time; where one is missing the callers fall
/// back to portable calls, or do without.
enum LinuxCalls {
    private typealias Renameat2 = @convention(c) (Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32) -> Int32
    private typealias SyncFS = @convention(c) (Int32) -> Int32
    private typealias ListXattr = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int
    private typealias GetXattr = @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?, Int) -> Int
    private typealias SetXattr = @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeRawPointer?, Int, Int32) -> Int32

    private static let renameat2: Renameat2? = dlsym(nil, "renameat2").map { unsafeBitCast($0, to: Renameat2.self) }
    private static let syncfs: SyncFS? = dlsym(nil, "syncfs").map { unsafeBitCast($0, to: SyncFS.self) }
    private static let flistxattr: ListXattr? = dlsym(nil, "flistxattr").map { unsafeBitCast($0, to: ListXattr.self) }
    private static let fgetxattr: GetXattr? = dlsym(nil, "fgetxattr").map { unsafeBitCast($0, to: GetXattr.self) }
    private static let fsetxattr: SetXattr? = dlsym(nil, "fsetxattr").map { unsafeBitCast($0, to: SetXattr.self) }

    /// `flistxattr`: the names of the extended attributes of the file open as
    /// `fd`, or nil with `errno` (`ENOTSUP`: the file system has none; `ENOSYS`: the call is missing).
    static func extendedAttributeNames(of fd: Int32) -> [String]? {
        guard let flistxattr else {
            errno = ENOSYS
            return nil
        }
        // Sized, then read; a list that grew in between is asked again.
        while true {
            let size = flistxattr(fd, nil, 0)
            guard size > 0 else { return size == 0 ? [] : nil }
            var list = [CChar](repeating: 0, count: size)
            let read = flistxattr(fd, &list, size)
            if read < 0 && errno == ERANGE { continue }
            guard read >= 0 else { return nil }
            return list[..<read].split(separator: 0).map { String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        }
    }

    /// `fgetxattr`: the value of the extended attribute `name` of the file open as `fd`, or nil with `errno`.
    static func extendedAttribute(_ name: String, of fd: Int32) -> [UInt8]? {
        guard let fgetxattr else {
            errno = ENOSYS
            return nil
        }
        while true {
            let size = fgetxattr(fd, name, nil, 0)
            guard size >= 0 else { return nil }
            var value = [UInt8](repeating: 0, count: size)
            let read = value.withUnsafeMutableBytes { fgetxattr(fd, name, $0.baseAddress, size) }
            if read < 0 && errno == ERANGE { continue }
            return read < 0 ? nil : Array(value[..<read])
        }
    }

    /// `fsetxattr`: sets the extended attribute `name` of the file open as `fd`
    /// to `value`. Returns 0, or -1 with `errno` (`ENOSYS` when the call is missing).
    static func setExtendedAttribute(_ name: String, to value: [UInt8], of fd: Int32) -> Int32 {
        guard let fsetxattr else {
            errno = ENOSYS
            return -1
        }
        return value.withUnsafeBytes { fsetxattr(fd, name, $0.baseAddress, $0.count, 0) }
    }

    /// Whether ``syncFileSystem(of:)`` is available.
    static var canSyncFileSystem: Bool { syncfs != nil }

    /// `syncfs`: writes every dirty file of the file system holding `fd` to the
    /// disk and flushes the disk's cache once. Returns its result (0, or -1 with
    /// `errno`); -1 with `ENOSYS` when the call is missing.
    static func syncFileSystem(of fd: Int32) -> Int32 {
        guard let syncfs else {
            errno = ENOSYS
            return -1
        }
        return syncfs(fd)
    }

    /// `O_TMPFILE` (Linux 3.11; `__O_TMPFILE | O_DIRECTORY` on x86-64 and
    /// arm64): `open` of a directory with it makes a file with no name on that
    /// directory's file system, gone when closed unless linked (``nameOpenFile(_:in:as:)``).
    static let openUnnamed: Int32 = 0o20_200_000

    /// Gives the unnamed file open as `descriptor` the name `name` in the
    /// directory open as `directory`, unless the name exists (then fails with
    /// `EEXIST`): `linkat` of `/proc/self/fd/N`, which, unlike `AT_EMPTY_PATH`,
    /// needs no privilege. Returns 0, or -1 with `errno`.
    static func nameOpenFile(_ descriptor: Int32, in directory: Int32, as name: String) -> Int32 {
        linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", directory, name, AT_SYMLINK_FOLLOW)
    }

    /// `renameat2(RENAME_NOREPLACE)`: renames `from` (in directory `fromDirectory`)
    /// to `to` (in `toDirectory`) unless `to` exists (then fails with `EEXIST`),
    /// atomically, in one call. Returns `rename`'s result (0, or -1 with `errno`
    /// set), or nil when the call is missing or the file system does not support
    /// it (use `link` then).
    static func renameNoReplace(_ fromDirectory: Int32, _ from: String, _ toDirectory: Int32, _ to: String) -> Int32? {
        guard let renameat2 else { return nil }
        let result = renameat2(fromDirectory, from, toDirectory, to, 1 /* RENAME_NOREPLACE */)
        if result != 0 && (errno == EINVAL || errno == ENOSYS) { return nil }
        return result
    }
}
