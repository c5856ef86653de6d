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
    /// The report for `--device auto`: the child's when it found no hardware GPU (or crashed), else this
    /// process's own discovery. Where no child can be started (no `/proc`), this process's own.
    static func reportForAuto() -> DeviceReport {
        guard let child = childReport() else { return DeviceDiscovery.current }
        return child.autoDevice == nil ? child : DeviceDiscovery.current
    }

    /// `kiln devices --json` in a child process, decoded; a report of failed discovery when the child died or said
    /// nothing readable; nil when it could not be started.
    static func childReport() -> DeviceReport? {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
              !executable.hasSuffix(" (deleted)") else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["devices", "--json"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return nil
        }
        // Both pipes read to their ends before waiting (a child that filled one would never exit), stderr on a
        // thread of its own.
        let said = Locked(Data())
        let read = DispatchSemaphore(value: 0)
        Thread {
            let data = errors.fileHandleForReading.readDataToEndOfFile()
            said.withLock { $0 = data }
            read.signal()
        }.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        read.wait()
        process.waitUntilExit()
        let message = said.withLock { String(decoding: $0, as: UTF8.self) }
            .split(whereSeparator: \.isNewline).last.map(String.init)
        if process.terminationReason == .exit, process.terminationStatus == 0,
           let report = try? JSONDecoder().decode(DeviceReport.self, from: data) {
            return report
        }
        // A crash's stderr is Swift's backtrace: only an exit's last line is a message.
        let how = process.terminationReason == .uncaughtSignal ? "was killed by signal \(process.terminationStatus)"
            : "exited \(process.terminationStatus)" + (message.map { ": \($0)" } ?? "")
        return DeviceReport(devices: [], reasonCode: .instanceFailed,
                            reason: "Vulkan discovery (kiln devices, in a child process) \(how)")
    }
}
