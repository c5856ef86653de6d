import Foundation

/// An input read once: its size and modification time (what made an output,
/// see ``Provenance``) and, for a small file, its bytes, all from one `open`,
/// `fstat`, `read` and `close`, so that the journal's record, the progress
/// weight and the decoding share that read. Larger files are left to the
/// decoder's streaming reader, which never holds a whole file in memory.
struct InputFile {
    /// Files up to this size are read whole (a few images per worker at most).
    static let wholeReadLimit = 8 << 20

    /// Size in bytes.
    let size: Int
    /// Modification time, in nanoseconds since 1970.
    let modified: Int
    /// The whole file when it is a non-empty regular file of at most
    /// ``wholeReadLimit`` bytes; nil otherwise (the decoder then opens it
    /// itself and reports any error).
    let bytes: [UInt8]?

    /// Reads `path`; nil when it cannot be opened (the decoder says why).
    init?(path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        size = Int(info.st_size)
        modified = Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)
        guard (info.st_mode & S_IFMT) == S_IFREG, size > 0, size <= Self.wholeReadLimit else {
            bytes = nil
            return
        }
        // Exactly its size: one read for a small file. A file changed while it is read is a
        // race no reader wins; a short read (it shrank) goes to the streaming reader, which reports it.
        var bytes = [UInt8](repeating: 0, count: size)
        var count = 0
        let size = self.size
        bytes.withUnsafeMutableBytes { buffer in
            while count < size {
                let n = read(fd, buffer.baseAddress! + count, size - count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                count += n
            }
        }
        self.bytes = count == size ? bytes : nil
    }
}
