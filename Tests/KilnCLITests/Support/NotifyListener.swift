import Foundation

/// A datagram socket that listens as systemd does for `sd_notify` messages
/// (`NOTIFY_SOCKET`): a path, or an abstract name written `@name`.
final class NotifyListener {
    /// What kiln is given as `NOTIFY_SOCKET`.
    let name: String
    private let fd: Int32
    /// Every message so far, with when it was read.
    private(set) var messages: [(time: ContinuousClock.Instant, text: String)] = []

    /// Binds `name` (`@…` for the abstract namespace).
    init(_ name: String) throws {
        self.name = name
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var bytes = Array(name.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes[0] == 0 ? 0 : 1))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard fd >= 0, bound == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EINVAL) }
    }

    deinit { close(fd) }

    /// Reads what came since the last call (never waits); returns all messages so far.
    @discardableResult
    func drain() -> [String] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard n > 0 else { break }
            messages.append((.now, String(decoding: buffer[0..<n], as: UTF8.self)))
        }
        return messages.map(\.text)
    }

    /// Reads messages while `child` runs, until `condition` holds or `timeout` passes; returns whether it held.
    @discardableResult
    func listen(to child: ChildProcess, for timeout: Duration, until condition: () -> Bool = { false }) -> Bool {
        child.waitUntil(timeout: timeout) {
            drain()
            return condition()
        }
    }

    /// Every `KEY=value` line received so far, in order.
    var lines: [String] { drain().flatMap { $0.split(separator: "\n").map(String.init) } }
}
