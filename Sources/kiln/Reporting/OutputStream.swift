import Foundation
import Locking

/// A standard stream that writes whole lines atomically from any thread.
final class OutputStream: Sendable {
    /// Standard output: the JSON event stream.
    static let standardOutput = OutputStream(fd: STDOUT_FILENO)
    /// Standard error: the progress bar and human messages.
    static let standardError = OutputStream(fd: STDERR_FILENO)

    private let fd: Int32
    private let lock = Locked(())

    private init(fd: Int32) {
        self.fd = fd
    }

    /// Whether the stream is a terminal.
    var isTerminal: Bool { isatty(fd) == 1 }

    /// The terminal's width in columns, or nil when it is not a terminal.
    var columns: Int? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Writes `text` in one call (no interleaving with other writers).
    func write(_ text: String) {
        lock.withLock { _ in
            var bytes = Array(text.utf8)
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return }  // a closed pipe: nothing more to say to it
                offset += n
            }
        }
    }
}
