import Foundation

/// A small file read whole (a recipe, an ICC profile), with the system's reason
/// when it cannot be: "No such file or directory", "Permission denied", "it is
/// a folder" — not Foundation's "The operation could not be completed.
/// (NSCocoaErrorDomain error 256.)", which a folder named as a recipe gave.
/// Opened without blocking, so a named pipe is refused, never waited on.
public enum SmallFile {
    /// Why a file could not be read.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// In words: the system's reason, or what the path is instead of a file.
        public let reason: String
        public var description: String { reason }
    }

    /// The bytes of the regular file at `path`.
    public static func contents(of path: String) -> Result<Data, Failure> {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(Failure(reason: String(cString: strerror(errno)))) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .failure(Failure(reason: String(cString: strerror(errno)))) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: return .failure(Failure(reason: "it is a folder"))
        default: return .failure(Failure(reason: "it is not a regular file"))
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return .failure(Failure(reason: String(cString: strerror(errno)))) }
            if count == 0 { return .success(data) }
            data.append(contentsOf: buffer[..<count])
        }
    }
}
