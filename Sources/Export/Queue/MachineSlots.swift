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

    /// The directory holding the lock and ticket files (see ``RuntimeFolder`` for its rules).
    public var directory: String { folder.path }
    /// How many CPU jobs may run at once.
    public let cpuSlots: Int

    /// The job holding a slot, as it wrote itself into the slot's file: what a
    /// queued job names as the one it waits for.
    public struct Holder: Codable, Sendable, Equatable {
        /// Its process.
        public var pid: Int32
        /// Its output folder.
        public var output: String
        /// Its title ("Exporting 29 images", or `--title`).
        public var title: String

        /// A holder.
        public init(pid: Int32, output: String, title: String) {
            self.pid = pid
            self.output = output
            self.title = title
        }

        /// "kiln pid 1234 (Exporting 29 images → /data/out)", "… and 1 more",
        /// or "another kiln job" when no slot file names its holder.
        public static func describe(_ holders: [Holder]) -> String {
            guard let first = holders.first else { return "another kiln job" }
            let more = holders.count > 1 ? " and \(holders.count - 1) more" : ""
            return "kiln pid \(first.pid) (\(first.title) → \(first.output))" + more
        }
    }
    /// The folder, checked at every acquire (that is, at every job's start).
    private let folder: RuntimeFolder

    /// Slots in `directory` (default: `$KILN_RUNTIME_DIR`, `$XDG_RUNTIME_DIR/kiln`,
    /// or `/tmp/kiln-<uid>`); `cpuSlots` defaults to `$KILN_CPU_SLOTS` or 1 (a job
    /// already uses every core).
    public init(directory: String? = nil, cpuSlots: Int? = nil,
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        folder = directory.map { RuntimeFolder(path: $0, source: .explicit) } ?? RuntimeFolder(environment: environment)
        self.cpuSlots = max(1, cpuSlots ?? environment["KILN_CPU_SLOTS"].flatMap(Int.init).map { $0 > Self.mostCPUSlots ? 1 : $0 } ?? 1)
    }

    /// The most CPU slots a machine has: each is a file a queued job looks at ten times a second (a billion
    /// were taken as given, and a queued job opened them all).
    static let mostCPUSlots = 1024

    /// What is wrong with `$KILN_CPU_SLOTS`, where it is set to anything but a whole number from 1 to
    /// ``mostCPUSlots`` (it was read as 1 without a word: `0`, `-1`, `abc`, `2.5`); nil where it is unset, empty
    /// or right.
    public static func cpuSlotsProblem(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        // Set empty, it is as unset.
        guard let value = environment["KILN_CPU_SLOTS"], !value.isEmpty, !(1...mostCPUSlots).contains(Int(value) ?? 0) else {
            return nil
        }
        let what = value.allSatisfy({ ("0"..."9").contains($0) }) && value.contains(where: { $0 != "0" })
            ? "is more than the \(mostCPUSlots) slots kiln keeps" : "is not a whole number from 1"
        return "KILN_CPU_SLOTS=\(value) \(what): one CPU job runs at a time on this machine, the default"
    }

    /// Opens and checks the slot folder (made 0700 when missing) without taking a
    /// slot: a job calls it before it writes anything, so a folder that is not
    /// the user's alone stops it first. Throws ``RuntimeFolderError``.
    public func checkFolder() throws(RuntimeFolderError) {
        _ = try folder.open()
    }

    /// Takes a free slot of `kind` at once for `holder`, or returns nil (for
    /// `--strategy fail`). A slot is free for a newcomer only when nobody is
    /// queued for it. Throws ``RuntimeFolderError`` when the folder is not the user's alone.
    public func tryAcquire(_ kind: Kind, as holder: Holder) throws -> Slot? {
        let (held, queue) = try prepare(kind)
        guard liveTickets(in: queue).isEmpty else { return nil }
        return try grab(kind, in: held, as: holder)
    }

    /// The jobs holding the slots of `kind` now, as they wrote themselves into the slot
    /// files (what a refused `--strategy fail` names). Throws ``RuntimeFolderError``.
    public func holders(of kind: Kind) throws -> [Holder] {
        holders(kind, in: try prepare(kind).folder)
    }

    /// Waits for a slot of `kind` in FIFO order, calling `position` with the
    /// 1-based queue position and the jobs holding the slots whenever either
    /// changes; returns nil if `cancelled` becomes true first. Throws
    /// ``RuntimeFolderError`` when the folder is not the user's alone.
    public func acquire(_ kind: Kind, as holder: Holder, position: (Int, [Holder]) -> Void,
                        cancelled: () -> Bool) throws -> Slot? {
        let (held, queue) = try prepare(kind)
        if liveTickets(in: queue).isEmpty, let slot = try grab(kind, in: held, as: holder) { return slot }
        let ticket = try Ticket(in: queue)
        defer { ticket.remove() }
        var last: (Int, [Holder]) = (0, [])
        while !cancelled() {
            let ahead = liveTickets(in: queue).filter { $0 < ticket.name }.count
            // Taken first when it is this job's turn: reported before, the holder's letting go was
            // a last `queued` naming nobody, just before the job started.
            if ahead == 0, let slot = try grab(kind, in: held, as: holder) { return slot }
            let now = (ahead + 1, holders(kind, in: held))
            // A holder letting go while a job ahead is about to take its slot names nobody for a moment:
            // no position to report (it was a `queued` at position 2 waiting for 0 jobs).
            let passing = now.1.isEmpty && ahead > 0 && !last.1.isEmpty
            if now != last && !passing {
                last = now
                position(now.0, now.1)
            }
            usleep(100_000)
        }
        return nil
    }

    /// The jobs holding the slots of `kind`, as they wrote themselves into the
    /// slot files; a file whose process is gone, or that holds no holder (one
    /// released, or written by an older kiln), names nobody.
    private func holders(_ kind: Kind, in folder: HeldDirectory) -> [Holder] {
        (0..<count(kind)).compactMap { index in
            let fd = folder.openFile("\(kind.rawValue)-\(index).lock", O_RDONLY)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var bytes = [UInt8](repeating: 0, count: 4096)
            let read = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            guard read > 0, let holder = try? JSONDecoder().decode(Holder.self, from: Data(bytes.prefix(read))),
                  kill(holder.pid, 0) == 0 || errno == EPERM else { return nil }
            return holder
        }
    }

    private func count(_ kind: Kind) -> Int { kind == .gpu ? 1 : cpuSlots }

    /// Opens and checks the slot folder, then its queue folder for `kind` (made 0700, never through a symlink).
    private func prepare(_ kind: Kind) throws -> (folder: HeldDirectory, queue: HeldDirectory) {
        let held = try folder.open()
        let name = "\(kind.rawValue)-queue"
        do throws(OutputError) {
            return (held, try HeldDirectory(name, in: held, create: true, mode: 0o700))
        } catch .system(_, let code) {
            throw RuntimeFolderError.system(held.path + "/" + name, code)
        } catch .symlinkInPath {
            throw RuntimeFolderError.unsafe(held.path + "/" + name, reason: "is a symbolic link")
        } catch {
            throw RuntimeFolderError.unsafe(held.path + "/" + name, reason: "is not a directory")
        }
    }

    private func grab(_ kind: Kind, in folder: HeldDirectory, as holder: Holder) throws -> Slot? {
        for index in 0..<count(kind) {
            if let slot = try Slot(name: "\(kind.rawValue)-\(index).lock", in: folder, holder: holder) { return slot }
        }
        return nil
    }

    /// Names of tickets whose processes still run, oldest first (names sort by arrival).
    private func liveTickets(in queue: HeldDirectory) -> [String] {
        queue.names().sorted().filter { name in
            guard let pid = name.split(separator: "-").last.flatMap({ pid_t($0) }) else { return false }
            if kill(pid, 0) == 0 || errno == EPERM { return true }
            queue.remove(name)  // its process died without cleaning up
            return false
        }
    }

    /// A held slot; released when this value is released or the process ends.
    /// Its file says who holds it (a ``Holder`` as JSON) while it is held.
    public final class Slot: Sendable {
        private let fd: Int32

        fileprivate init?(name: String, in folder: HeldDirectory, holder: Holder) throws {
            let fd = folder.openFile(name, O_RDWR | O_CREAT, mode: 0o600)
            guard fd >= 0 else { throw JournalError.system("cannot open \(folder.path)/\(name)", errno) }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                close(fd)
                return nil
            }
            self.fd = fd
            // Best effort: a slot whose holder cannot be written is still held; waiters then name nobody.
            let bytes = (try? JSONEncoder().encode(holder)).map { [UInt8]($0) } ?? []
            if ftruncate(fd, 0) == 0 { _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } }
        }

        deinit {
            // Released: the file names nobody (after kill -9 the pid check does it).
            _ = ftruncate(fd, 0)
            close(fd)
        }
    }

    /// A place in the queue: an empty file named `<arrival ns>-<pid>`.
    private struct Ticket {
        let name: String
        let queue: HeldDirectory

        init(in queue: HeldDirectory) throws {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            name = String(format: "%020lld-%d", Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec), getpid())
            self.queue = queue
            let fd = queue.openFile(name, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
            guard fd >= 0 else { throw JournalError.system("cannot create \(queue.path)/\(name)", errno) }
            close(fd)
        }

        func remove() { queue.remove(name) }
    }
}
