internal import Compute

/// Applies `--device` (SPEC §3) to what discovery found.
public enum BackendSelector {
    /// Chooses the backend for `preference`.
    ///
    /// - `auto`: the best hardware GPU when `.gpu` is supported, else the CPU;
    ///   also the CPU when that GPU fails to set up. Never a software device.
    /// - `gpu`: the best hardware GPU; throws `ComputeError.unavailable` with the reason otherwise.
    /// - `vulkan`: the best Vulkan device, software included; throws when there is none.
    /// - `cpu`: the CPU. `report` is not evaluated, so Vulkan is never loaded.
    ///
    /// `options` configures a Vulkan backend (validation, fault injection);
    /// by default they come from the environment.
    public static func choose(
        _ preference: DevicePreference,
        report: @autoclosure () -> DeviceReport = DeviceDiscovery.current,
        options: @autoclosure () -> VulkanOptions = .fromEnvironment()
    ) throws -> BackendChoice {
        switch preference {
        case .cpu:
            return BackendChoice(backend: CPUBackend(), note: "CPU (--device cpu)")
        case .auto:
            let report = report()
            guard let device = report.autoDevice else {
                return BackendChoice(backend: CPUBackend(), note: "CPU (\(shortReason(report)))")
            }
            do {
                let backend = try VulkanBackend(device: device, options: options())
                return BackendChoice(backend: backend, note: "\(backend.label) (\(device.type.rawValue) GPU)")
            } catch {
                return BackendChoice(backend: CPUBackend(), note: "CPU (Vulkan setup failed: \(error))")
            }
        case .gpu:
            let report = report()
            guard let device = report.autoDevice else {
                throw ComputeError.unavailable(reason: "no GPU: \(report.reason)")
            }
            let backend = try VulkanBackend(device: device, options: options())
            return BackendChoice(backend: backend, note: "\(backend.label) (\(device.type.rawValue) GPU)")
        case .vulkan:
            let report = report()
            guard let device = report.vulkanDevice else {
                throw ComputeError.unavailable(reason: "no usable Vulkan device: \(report.reason)")
            }
            let backend = try VulkanBackend(device: device, options: options())
            let kind = device.type.isHardware ? "\(device.type.rawValue) GPU" : "software device, slower than the CPU path"
            return BackendChoice(backend: backend, note: "\(backend.label) (\(kind))")
        }
    }

    /// The few words that say why the CPU is used, for the device line of the progress display.
    static func shortReason(_ report: DeviceReport) -> String {
        switch report.reasonCode {
        case .noLoader: "no Vulkan loader"
        case .noDriver: "no Vulkan driver"
        case .instanceFailed: "Vulkan instance creation failed"
        case .onlySoftwareDevices: "no GPU, only software Vulkan"
        case .noComputeQueue: "no Vulkan compute queue"
        case nil: "GPU not used"
        }
    }
}
