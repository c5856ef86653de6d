internal import CVulkan
import Foundation

/// Finds the machine's Vulkan devices (SPEC §3). Safe and cheap at startup:
/// it never crashes when Vulkan is absent, and `current` runs it once.
public enum DeviceDiscovery {
    /// The report for this process's environment, discovered on first use and then reused.
    public static var current: DeviceReport { cached }

    private static let cached = discover()

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
        let loader: VulkanLoader
        switch VulkanLoader.open(environment: environment) {
        case .success(let opened): loader = opened
        case .failure(let failure):
            return DeviceReport(devices: [], reasonCode: .noLoader,
                                reason: "no Vulkan loader: \(failure.message)")
        }
        var devices: [DeviceInfo]
        do {
            let instance = try VulkanInstance(loader: loader)
            devices = try instance.physicalDevices().map(\.info)
            if environment[softwareAsGPUVariable] == "1" {
                // Test hook: lets CI, which has only lavapipe, exercise the paths that need a GPU
                // (`--device gpu` failing mid-job). Never set outside tests.
                devices = devices.map { var d = $0; if d.type == .cpu { d.type = .virtual }; return d }
            }
        } catch VulkanError.call(let call, let result) where result == VK_ERROR_INCOMPATIBLE_DRIVER {
            return DeviceReport(devices: [], reasonCode: .noDriver,
                                reason: "Vulkan loader found but no driver (ICD): \(call) returned \(VulkanResult.name(result))")
        } catch {
            return DeviceReport(devices: [], reasonCode: .instanceFailed,
                                reason: "Vulkan instance creation failed: \(error)")
        }
        return report(for: devices)
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
