import Foundation
import Locking
import VulkanCompute

/// What `--device auto` decides by: Vulkan discovery run in a child process
/// (this same binary's `kiln devices --json`), so that a machine with no
/// hardware GPU never maps a Vulkan driver into the job.
///
/// Making a Vulkan instance loads every driver the loader finds. On a machine
/// whose only driver is Mesa's lavapipe (Debian's `mesa-vulkan-drivers`, on
/// many desktops, CI runners and containers) that is LLVM: 57 MB resident
/// (a job's floor went from 25 MB to 83 MB, and `--memory 40M` was refused)
/// that `vkDestroyInstance` and `dlclose` give back only 8 MB of (LLVM stays
/// mapped; measured with a C harness on this machine), for a device `auto`
/// never uses. The child maps it and exits. Where it finds a hardware GPU, the
/// job discovers again in its own process: the backend needs its own instance,
/// and the device indices of its own enumeration.
///
/// A driver that crashes while enumerating (a broken ICD) now takes only the
/// child with it: the job runs on the CPU and says why. The child takes about
/// 80 ms here (`kiln devices --json`: its start, and lavapipe's 60 ms load,
/// which the job's own discovery took before); it is started as the command
/// starts (``begin()``), so it runs while the inputs are read (rejected: the
/// loader's `VK_LOADER_DRIVERS_DISABLE`, which needs a driver's manifest name
/// known to be software before loading it, and environment changes in a
/// running process).
enum DeviceProbe {
    /// How long the child may take: the default `--stall-timeout`, the longest a job's own work may stand still.
    /// Past it the child is killed and the job renders on the CPU, saying why (in this process, a driver that
    /// hung there hung the job before its watchdog existed).
    static let timeout: Double = 60

    /// The child started by ``begin()``, whose report ``reportForAuto()`` takes.
    private static let started = Locked<Child??>(nil)
    /// What ``reportForAuto()`` found, kept: a job that starts over (the one it waited for left the folder) asks
    /// again, and the child's report can be taken once (a second wait on its end hung that job).
    private static let found = Locked<DeviceReport?>(nil)

    /// Starts the child now, for a command that will choose `--device auto`: its discovery (about 80 ms, most of it
    /// lavapipe's loading) runs while the command reads its inputs, rather than before the job's start. Once.
    static func begin() {
        started.withLock { if $0 == nil { $0 = .some(Child.start()) } }
    }

    /// The report for `--device auto`: the child's when it found no hardware GPU, or when it crashed or hung
    /// (``failed``) with none said; else this process's own discovery (a GPU found; or a child that could not run
    /// the command, such as a kiln started through `ld.so`, whose `/proc/self/exe` is the loader: exit 127).
    /// `cancelled` is asked every tenth of a second while the child runs: true kills it, and nil comes back (a
    /// Ctrl-C while a driver hung there).
    static func reportForAuto(cancelled: () -> Bool = { false }) -> DeviceReport? {
        if let report = found.withLock({ $0 }) { return report }
        begin()
        guard let child = started.withLock({ $0 ?? nil }) else { return DeviceDiscovery.current }
        let report = child.report(cancelled: cancelled)
        if cancelled() { return nil }
        let chosen = report.flatMap { $0.autoDevice == nil ? $0 : nil } ?? DeviceDiscovery.current
        found.withLock { $0 = chosen }
        return chosen
    }

    /// The environment variable that tells `kiln devices` it is this probe's child: it then ends when its parent
    /// does (its standard input, a pipe the parent holds, closes), rather than stay, hung in a driver, an orphan.
    static let childVariable = "KILN_DEVICE_PROBE"

    /// In `kiln devices` run as the probe's child: ends the process once the parent is gone, whatever the main
    /// thread is doing (a driver that hangs).
    static func endWithParent() {
        guard ProcessInfo.processInfo.environment[childVariable] == "1" else { return }
        // Started from a thread of Swift's pool, the child inherited libdispatch's mask, every stop signal blocked:
        // unblocked here, for this thread, the watcher and what a driver starts.
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        Thread {
            var byte: UInt8 = 0
            while true {
                let count = read(STDIN_FILENO, &byte, 1)
                if count > 0 || (count < 0 && errno == EINTR) { continue }
                break
            }
            _exit(1)
        }.start()
    }

    /// Whether `report` is a child's that crashed or hung: said to the user as a warning, the start event's device
    /// showing only "CPU (Vulkan instance creation failed)".
    static func failed(_ report: DeviceReport) -> Bool {
        report.reasonCode == .instanceFailed && report.reason.hasPrefix(childPrefix)
    }

    private static let childPrefix = "Vulkan discovery (kiln devices, in a child process)"

    /// `kiln devices --json` in a child process.
    private final class Child: Sendable {
        let process: Process
        /// The child's standard input, held open while it runs: it ends when this closes (``endWithParent()``).
        let input: Pipe
        /// Signalled by Foundation's handler when the child ends: a wait on it can time out, as waitUntilExit cannot.
        let ended: DispatchSemaphore
        /// Signalled once the pipe is read to its end: waited for a bounded time, a grandchild may hold it open.
        let read: DispatchSemaphore
        let said: Locked<Data>

        private init(process: Process, input: Pipe, ended: DispatchSemaphore, read: DispatchSemaphore, said: Locked<Data>) {
            self.process = process
            self.input = input
            self.ended = ended
            self.read = read
            self.said = said
        }

        /// The child, started; nil when it cannot be. `/proc/self/exe` itself is run: it names this binary even
        /// once its file is deleted or replaced (an upgrade while a long `find | kiln export -` read its list).
        static func start() -> Child? {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
            process.arguments = ["devices", "--json"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            let input = Pipe()
            process.standardInput = input
            // No Swift backtrace on a crash: it went nowhere, and its helper process held the pipe open for seconds.
            process.environment = ProcessInfo.processInfo.environment.merging(
                [DeviceProbe.childVariable: "1", "SWIFT_BACKTRACE": "enable=no"]) { $1 }
            // Signalled by Foundation's handler when the child ends: a wait on it can time out.
            let ended = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in ended.signal() }
            do {
                try process.run()
            } catch {
                return nil
            }
            // Read on a thread of its own until the pipe closes (a child that filled it would never exit), so that
            // a child that hangs is still timed.
            let said = Locked(Data())
            // Signalled once the pipe is read to its end.
            let read = DispatchSemaphore(value: 0)
            // Kept as it comes: a report the child printed is read even where a process it left holds the pipe open.
            let descriptor = output.fileHandleForReading.fileDescriptor
            Thread {
                var chunk = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                    if count > 0 {
                        said.withLock { $0.append(contentsOf: chunk[..<count]) }
                    } else if !(count < 0 && errno == EINTR) {
                        break
                    }
                }
                read.signal()
            }.start()
            return Child(process: process, input: input, ended: ended, read: read, said: said)
        }

        /// Its report, asked once (the last line of its output that is one, whatever its exit status: a layer may log to
        /// stdout, a driver crash at exit after the report); a report of failed discovery when it died by a signal
        /// or exited otherwise than 0 or did not answer in ``DeviceProbe/timeout`` seconds saying none; nil when it
        /// could not run the command (exit 126 or 127) or was stopped by `cancelled`.
        func report(cancelled: () -> Bool) -> DeviceReport? {
            let deadline = DispatchTime.now() + DeviceProbe.timeout
            while ended.wait(timeout: min(deadline, .now() + 0.1)) == .timedOut {
                guard !cancelled(), DispatchTime.now() < deadline else {
                    // Its process group (Foundation starts it in one of its own): what it started goes too. Waited
                    // for 2 s at most: one stuck in the kernel in a driver's call outlives even SIGKILL.
                    let group = process.processIdentifier
                    if kill(-group, SIGKILL) != 0 { kill(group, SIGKILL) }
                    _ = ended.wait(timeout: .now() + 2)
                    return cancelled() ? nil : DeviceReport(devices: [], reasonCode: .instanceFailed, reason: "\(childPrefix) did "
                                                            + "not answer in \(Int(DeviceProbe.timeout)) s, and was killed")
                }
            }
            // What it printed is in the pipe: read within a second (one a process it left holds open is not waited
            // for to its end).
            _ = read.wait(timeout: .now() + 1)
            let lines = said.withLock { $0 }.split(separator: UInt8(ascii: "\n"))
            if let report = lines.reversed().lazy.compactMap({ try? JSONDecoder().decode(DeviceReport.self, from: Data($0)) }).first {
                return report
            }
            let status = process.terminationStatus
            switch process.terminationReason {
            case .uncaughtSignal:
                let name = strsignal(status).map { " (\(String(cString: $0)))" } ?? ""
                return DeviceReport(devices: [], reasonCode: .instanceFailed,
                                    reason: "\(childPrefix) was killed by signal \(status)\(name) before it reported")
            case .exit where status == 126 || status == 127:
                return nil  // the command could not run (kiln through ld.so): no driver was tried
            default:
                // Whatever else ended it without a report, its drivers may have: not loaded into the job.
                return DeviceReport(devices: [], reasonCode: .instanceFailed,
                                    reason: "\(childPrefix) exited \(status) before it reported")
            }
        }
    }
}
