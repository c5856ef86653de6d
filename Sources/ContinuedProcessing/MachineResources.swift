/// The one place that says which resources this machine supports by default.
enum MachineResources {
    /// The default `resourceProbe`: CPU only for now.
    ///
    /// The real Vulkan probe of the `Devices` module replaces this closure (SPEC §3);
    /// until then no request needing `.gpu` is accepted unless a probe is injected.
    static let machineProbe: @Sendable () -> ContinuedProcessingTaskRequest.Resources = { [] }
}
