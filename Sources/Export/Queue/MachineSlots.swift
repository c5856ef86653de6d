import Foundation

/// Machine-wide slots shared by every `kiln` process of a user (SPEC §5
/// "Queue across processes"): one slot for the Vulkan device, and a
/// configurable number for CPU jobs. A slot is an `flock` on a file in the
/// runtime directory, so the kernel frees it when its holder exits, even
/// after `kill -9`. Waiting processes queue FIFO by ticket files named by
/// their arrival time; a ticket whose process is gone no longer counts.
public struct MachineSlots: Sendable {
    /// Which slots a job needs.
    public enum Kind: String, Sendable {
        /// The Vulkan device slot (one job at a time).
        case gpu
        /// A CPU job slot.
        case cpu
    }

    /// The directory holding the lock and ticket files.
    public let directory: String
    /// How many CPU jobs may run at once.
    public let cpuSlots: Int

    /// Slots in `directory` (default: `$KILN_RUNTIME_DIR`, `$XDG_RUNTIME_DIR/kiln`,
    /// or `/tmp/kiln-<uid>`); `cpuSlots` defaults to `$KILN_CPU_SLOTS` or 1 (a job
    /// already uses every core).
    public init(directory: String? = nil, cpuSlots: Int? = nil,
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.directory = directory ?? environment["KILN_RUNTIME_DIR"]
            ?? environment["XDG_RUNTIME_DIR"].map { $0 + "/kiln" } ?? "/tmp/kiln-\(getuid())"
        self.cpuSlots = max(1, cpuSlots ?? environment["KILN_CPU_SLOTS"].flatMap(Int.init) ?? 1)
    }

    /// Takes a free slot of `kind` at once, or returns nil (for `--strategy fail`).
    /// A slot is free for a newcomer only when nobody is queued for it.
    public func tryAcquire(_ kind: Kind) throws -> Slot? {
        try prepare(kind)
        guard try liveTickets(kind).isEmpty else { return nil }
        return try grab(kind)
    }

    /// Waits for a slot of `kind` in FIFO order, calling `position` with the
    /// 1-based queue position whenever it changes; returns nil if `cancelled`
    /// becomes true first.
    public func acquire(_ kind: Kind, position: (Int) -> Void, cancelled: () -> Bool) throws -> Slot? {
        try prepare(kind)
        if try liveTickets(kind).isEmpty, let slot = try grab(kind) { return slot }
        let ticket = try Ticket(directory: ticketDirectory(kind))
        defer { ticket.remove() }
        var last = 0
        while !cancelled() {
            let ahead = try liveTickets(kind).filter { $0 < ticket.name }.count
            if ahead + 1 != last {
                last = ahead + 1
                position(last)
            }
            if ahead == 0, let slot = try grab(kind) { return slot }
            usleep(100_000)
        }
        return nil
    }

    private func count(_ kind: Kind) -> Int { kind == .gpu ? 1 : cpuSlots }
    private func ticketDirectory(_ kind: Kind) -> String { directory + "/\(kind.rawValue)-queue" }

    private func prepare(_ kind: Kind) throws {
        do {
            try FileManager.default.createDirectory(atPath: ticketDirectory(kind), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw JournalError.system("cannot create the runtime directory \(directory)", errno)
        }
    }

    private func grab(_ kind: Kind) throws -> Slot? {
        for index in 0..<count(kind) {
            if let slot = try Slot(path: directory + "/\(kind.rawValue)-\(index).lock") { return slot }
        }
        return nil
    }

    /// Names of tickets whose processes still run, oldest first (names sort by arrival).
    private func liveTickets(_ kind: Kind) throws -> [String] {
        let dir = ticketDirectory(kind)
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted().filter { name in
            guard let pid = name.split(separator: "-").last.flatMap({ pid_t($0) }) else { return false }
            if kill(pid, 0) == 0 || errno == EPERM { return true }
            unlink(dir + "/" + name)  // its process died without cleaning up
            return false
        }
    }

    /// A held slot; released when this value is released or the process ends.
    public final class Slot: Sendable {
        private let fd: Int32

        fileprivate init?(path: String) throws {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw JournalError.system("cannot open \(path)", errno) }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                close(fd)
                return nil
            }
            self.fd = fd
        }

        deinit {
            close(fd)
        }
    }

    /// A place in the queue: an empty file named `<arrival ns>-<pid>`.
    private struct Ticket {
        let name: String
        let path: String

        init(directory: String) throws {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            name = String(format: "%020lld-%d", Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec), getpid())
            path = directory + "/" + name
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw JournalError.system("cannot create \(path)", errno) }
            close(fd)
        }

        func remove() { unlink(path) }
    }
}
