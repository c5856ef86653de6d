import Glibc

/// systemd's notification socket (`NOTIFY_SOCKET`): an `AF_UNIX` datagram socket
/// named by a path, or by an abstract name written with a leading `@`. What
/// `sd_notify` does, without libsystemd. The descriptor is closed when dropped.
struct NotifySocket: ~Copyable {
    private let fd: Int32
    private var address: sockaddr_un
    private let length: socklen_t

    /// The socket `environment` names; nil when it names none or one that cannot be used.
    init?(environment: [String: String]) {
        guard let name = environment["NOTIFY_SOCKET"], name.hasPrefix("/") || name.hasPrefix("@") else { return nil }
        var bytes = Array(name.utf8)
        if bytes[0] == UInt8(ascii: "@") { bytes[0] = 0 }  // abstract namespace
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        self.fd = fd
        self.address = address
        // An abstract name is exactly its bytes; a path ends at its NUL.
        length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes[0] == 0 ? 0 : 1))
    }

    deinit { close(fd) }

    /// Sends one message ("READY=1", "STATUS=…", several lines at once), never waiting: a manager
    /// that does not read loses it. Returns whether it was sent.
    @discardableResult
    func send(_ message: String) -> Bool {
        var address = self.address
        let bytes = Array(message.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddr in
                sendto(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT), sockaddr, length)
            }
        }
        return sent == bytes.count
    }
}
