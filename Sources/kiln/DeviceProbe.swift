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
/// child with it: the job runs on the CPU and says why. Spawning the child
/// costs about 15 ms beside the 60 ms lavapipe takes to load (rejected: the
/// loader's `VK_LOADER_DRIVERS_DISABLE`, which needs a driver's manifest name
/// known to be software before loading it, and environment changes in a
/// running process).
enum DeviceProbe {
    /// How long the child may take: the default `--stall-timeout`, the longest a job's own work may stand still.
    /// Past it the child is killed and the job renders on the CPU, saying why (in this process, a driver that
    /// hung there hung the job before its watchdog existed).
    static let timeout: Double = 60

    /// The report for `--device auto`: the child's when it found no hardware GPU, or when it crashed or hung
    /// (``failed``) with none said; else this process's own discovery (a GPU found; or a child that could not run
    /// the command, such as a kiln started through `ld.so`, whose `/proc/self/exe` is the loader).
    static func reportForAuto() -> DeviceReport {
        guard let child = childReport(), child.autoDevice == nil else { return DeviceDiscovery.current }
        return child
    }

    /// Whether `report` is a child's that crashed or hung: said to the user as a warning, the start event's device
    /// showing only "CPU (Vulkan instance creation failed)".
    static func failed(_ report: DeviceReport) -> Bool {
        report.reasonCode == .instanceFailed && report.reason.hasPrefix(childPrefix)
    }

    private static let childPrefix = "Vulkan discovery (kiln devices, in a child process)"

    /// `kiln devices --json` in a child process: its report (the last line of its output that is one, whatever its
    /// exit status: a layer may log to stdout, a driver crash at exit after the report); a report of failed
    /// discovery when it died by a signal or did not answer in ``timeout`` seconds saying none; nil when it could
    /// not be started or exited without one.
    static func childReport() -> DeviceReport? {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
              !executable.hasSuffix(" (deleted)") else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["devices", "--json"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        // Signalled by Foundation's handler when the child ends: a wait on it can time out, as waitUntilExit cannot.
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        do {
            try process.run()
        } catch {
            return nil
        }
        // Read on a thread of its own until the pipe closes (a child that filled it would never exit), so that a
        // child that hangs is still timed.
        let said = Locked(Data())
        // Signalled once the pipe is read to its end: waited for a bounded time, a grandchild may hold it open.
        let read = DispatchSemaphore(value: 0)
        Thread {
            let data = (try? output.fileHandleForReading.readToEnd()) ?? nil
            said.withLock { $0 = data ?? Data() }
            read.signal()
        }.start()
        guard ended.wait(timeout: .now() + timeout) == .success else {
            kill(process.processIdentifier, SIGKILL)
            ended.wait()
            return DeviceReport(devices: [], reasonCode: .instanceFailed,
                                reason: "\(childPrefix) did not answer in \(Int(timeout)) s, and was killed")
        }
        // The pipe closes with the child; one a grandchild it left holds is not waited for.
        _ = read.wait(timeout: .now() + 5)
        let lines = said.withLock { $0 }.split(separator: UInt8(ascii: "\n"))
        if let report = lines.reversed().lazy.compactMap({ try? JSONDecoder().decode(DeviceReport.self, from: Data($0)) }).first {
            return report
        }
        guard process.terminationReason == .uncaughtSignal else { return nil }
        return DeviceReport(devices: [], reasonCode: .instanceFailed,
                            reason: "\(childPrefix) was killed by signal \(process.terminationStatus) before it reported")
    }
}
