import Foundation

/// Reads an input once: a small file whole into memory (one `open`, `fstat`,
/// `read`, `close`), so that its weight for the progress and its decoding share
/// that read. Larger files are left to the decoder's streaming reader, which
/// never holds a whole file in memory.
enum InputFile {
    /// Files up to this size are read whole (a few images per worker at most).
    static let wholeReadLimit = 8 << 20

    /// The file's bytes when it is a regular file of at most ``wholeReadLimit``
    /// bytes; nil when it is larger or not a regular file (the decoder then
    /// opens it itself and reports any error).
    static func smallContents(of path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0, info.st_size <= wholeReadLimit else {
            return nil
        }
        // Exactly its size: one read for a small file. A file changed while it is read is a
        // race no reader wins; a short read (it shrank) goes to the streaming reader, which reports it.
        let size = Int(info.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var count = 0
        bytes.withUnsafeMutableBytes { buffer in
            while count < size {
                let n = read(fd, buffer.baseAddress! + count, size - count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                count += n
            }
        }
        return count == size ? bytes : nil
    }
}
