/// The `--device` option (SPEC §3, §5).
public enum DevicePreference: String, CaseIterable, Sendable {
    /// A GPU when `.gpu` is supported, otherwise the CPU; never a software Vulkan device.
    case auto
    /// A hardware GPU is required; fails when there is none.
    case gpu
    /// Any Vulkan device, software ones (lavapipe) included; fails when there is none.
    case vulkan
    /// The CPU path; Vulkan is never touched (not even loaded).
    case cpu
}
