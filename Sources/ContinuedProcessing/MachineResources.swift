import Devices

/// The one place that says which resources this machine supports by default.
enum MachineResources {
    /// The default `resourceProbe` (SPEC §3): `.gpu` only when Vulkan discovery
    /// finds a usable hardware device (discrete, integrated or virtual); a software
    /// device such as lavapipe is not a GPU. Discovery runs once per process.
    static let machineProbe: @Sendable () -> ContinuedProcessingTaskRequest.Resources = {
        DeviceDiscovery.current.supportsGPU ? .gpu : []
    }
}
