import Foundation

/// An input read once: its version (size, modification time, inode: what made an
/// output, see ``Provenance``, and what tells a change while it is read) and,
/// for a small file, its bytes, all from one `open`, `fstat`, `read` and
/// `close`, so that the journal's record, the progress weight and the decoding
/// share that read. Larger files are left to the decoder's streaming reader,
/// which never holds a whole file in memory.
///
/// A file rewritten while it is read (a `cp` over it, a `mv` onto its name)
/// would give an output spliced from two images: the streaming reader reads on
/// into the new content, and the PNG decoder's fallback reads the file again
/// from its start. ``isUnchanged()`` compares the version taken here, before a
/// byte was read, with the file's version once decoding finished: an image
/// whose input changed in between fails (``InputChanged``), whatever was decoded.
///
/// Rejected design: handing the decoder the descriptor opened here. It would
/// keep a `mv` over the input from being read, but not a `cp` (the same inode,
/// rewritten), so the check after decoding is needed anyway, and it covers both.
struct InputFile {
    /// Files up to this size are read whole (a few images per worker at most): 1 MiB,
    /// which keeps small files to one read each; at 8 MiB, W1's 3840×2160 wallpapers
    /// (up to 7.6 MB) were held whole beside the render: W1 fit to 1920 with 2 jobs
    /// peaked at 130 MB, 116 MB with 1 MiB (BENCHMARKS.md).
    static let wholeReadLimit = 1 << 20

    /// The path it was read from.
    let path: String
    /// Its version when it was opened, before anything was read.
    let version: FileVersion
    /// Its hard links then.
    private let links: Int
    /// The whole file when it is a non-empty regular file of at most
    /// ``wholeReadLimit`` bytes; nil otherwise (the decoder then opens it
    /// itself and reports any error).
    let bytes: [UInt8]?

    /// Reads `path`; nil when it cannot be opened (the decoder says why).
    init?(path: String) {
        // Without blocking: a pipe is not read here (its reader refuses it, ``SpecialFile``).
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        self.path = path
        version = FileVersion(info)
        links = Int(info.st_nlink)
        let size = version.size
        guard (info.st_mode & S_IFMT) == S_IFREG, size > 0, size <= Self.wholeReadLimit else {
            bytes = nil
            return
        }
        // Exactly its size: one read for a small file. A file changed while it is read fails
        // by ``isUnchanged()``; a short read (it shrank) goes to the streaming reader, which reports it.
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
        self.bytes = count == size ? bytes : nil
    }

    /// Whether the file at ``path`` is still the version read (by `stat`, following symlinks as the read did).
    /// A change of its change time that came with a change of its link count, its contents' size and time as they
    /// were, is another name of it made or taken away, not a write: in place, each hard link of a file is replaced on
    /// its own, and the rename over one took a link from the file the others were being read from (half of eight
    /// links failed as "changed while being read").
    func isUnchanged() -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let now = FileVersion(info)
        return now == version || (now.identity == version.identity && now.size == version.size
                                  && now.modified == version.modified && Int(info.st_nlink) != links)
    }
}

/// An input that changed between being opened and the end of its decoding: what
/// was decoded may mix two versions of it, so its image fails and nothing is written.
struct InputChanged: Error, CustomStringConvertible {
    var description: String {
        "changed while being read (it was rewritten or replaced during its export); no output was written — "
            + "export it again once it is complete"
    }
}
