internal import CVulkan
import Foundation

/// Finds the machine's Vulkan devices (SPEC §3). Safe and cheap at startup:
/// it never crashes when Vulkan is absent, and `current` runs it once, keeping
/// the instance it made for the process (the backend's, ``instance(for:)``).
public enum DeviceDiscovery {
    /// The report for this process's environment, discovered on first use and then reused.
    public static var current: DeviceReport { cached.report }

    /// The report for this process's environment and the instance that made it,
    /// kept for the backend (``instance(for:)``).
    private static let cached = discovered(environment: ProcessInfo.processInfo.environment)

    /// The instance this process's discovery made (running it if it has not
    /// run), for a backend whose `environment` names the same loader: the
    /// backend then makes no second instance. Nil when the loader differs, or
    /// no instance could be made.
    static func instance(for environment: [String: String]) -> VulkanInstance? {
        // Unset and empty both mean the system's loader (`VulkanLoader.open`).
        func loader(_ environment: [String: String]) -> String { environment[VulkanLoader.pathVariable] ?? "" }
        guard loader(environment) == loader(ProcessInfo.processInfo.environment) else { return nil }
        return cached.instance
    }

    /// The test-only variable that reports software devices as virtual GPUs.
    public static let softwareAsGPUVariable = "KILN_TEST_SOFTWARE_AS_GPU"

    /// Discovers devices now.
    ///
    /// `environment` supplies `KILN_VULKAN_LIBRARY` (the loader path). The
    /// loader's own variables (`VK_DRIVER_FILES`, `VK_ICD_FILENAMES`, …) are
    /// read by the loader from the process environment, which a library
    /// cannot change safely in a running process: run a child process to
    /// vary them.
    public static func discover(environment: [String: String] = ProcessInfo.processInfo.environment) -> DeviceReport {
        discovered(environment: environment).report
    }

    /// ``discover(environment:)``, and the instance that enumerated the devices (nil where none was made).
    private static func discovered(environment: [String: String]) -> (report: DeviceReport, instance: VulkanInstance?) {
        let loader: VulkanLoader
        switch VulkanLoader.open(environment: environment) {
        case .success(let opened): loader = opened
        case .failure(let failure):
            return (DeviceReport(devices: [], reasonCode: .noLoader, reason: "no Vulkan loader: \(failure.message)"), nil)
        }
        let instance: VulkanInstance
        var devices: [DeviceInfo]
        do {
            instance = try VulkanInstance(loader: loader)
            devices = try instance.physicalDevices().map(\.info)
            if environment[softwareAsGPUVariable] == "1" {
                // Test hook: lets CI, which has only lavapipe, exercise the paths that need a GPU
                // (`--device gpu` failing mid-job). Never set outside tests.
                devices = devices.map { var d = $0; if d.type == .cpu { d.type = .virtual }; return d }
            }
        } catch VulkanError.call(let call, let result) where result == VK_ERROR_INCOMPATIBLE_DRIVER {
            return (DeviceReport(devices: [], reasonCode: .noDriver,
                                 reason: "Vulkan loader found but no driver (ICD): \(call) returned \(VulkanResult.name(result))"), nil)
        } catch VulkanError.call(let call, let result)
                    where result == VK_ERROR_INITIALIZATION_FAILED && call == "vkEnumeratePhysicalDevices" {
            // The loader's answer when its drivers find no hardware (a GPU's driver installed where its GPU is not):
            // no physical device, as the table in docs/devices.md says. It was "instance creation failed".
            return (DeviceReport(devices: [], reasonCode: .noDriver,
                                 reason: "Vulkan loader found but no driver (ICD) reports a device: \(call) returned "
                                 + VulkanResult.name(result)), nil)
        } catch {
            return (DeviceReport(devices: [], reasonCode: .instanceFailed, reason: "Vulkan instance creation failed: \(error)"), nil)
        }
        return (report(for: devices), instance)
    }

    /// Classifies a list of devices: the reason code and sentence follow from it.
    static func report(for devices: [DeviceInfo]) -> DeviceReport {
        let partial = DeviceReport(devices: devices, reasonCode: nil, reason: "")
        if let chosen = partial.autoDevice {
            return DeviceReport(devices: devices, reasonCode: nil,
                                reason: "\(chosen.type.rawValue) GPU \(chosen.name) (vulkan:\(chosen.index)) is usable")
        }
        if devices.isEmpty {
            return DeviceReport(devices: [], reasonCode: .noDriver,
                                reason: "Vulkan loader found but no driver (ICD) reports a device")
        }
        let usable = devices.filter(\.usable)
        if usable.isEmpty {
            return DeviceReport(devices: devices, reasonCode: .noComputeQueue,
                                reason: "no Vulkan device has a compute queue")
        }
        let names = usable.map(\.name).joined(separator: ", ")
        return DeviceReport(devices: devices, reasonCode: .onlySoftwareDevices,
                            reason: "only software Vulkan devices (\(names)); the CPU path is faster, --device vulkan selects them anyway")
    }
}
