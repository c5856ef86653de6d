/// Why `.gpu` is not supported on this machine; the raw value is the JSON
/// `reasonCode` of `kiln devices --json`.
public enum NoGPUReason: String, Sendable, Codable, CaseIterable {
    /// The Vulkan loader library could not be opened (not installed, or
    /// `KILN_VULKAN_LIBRARY` names a missing file).
    case noLoader
    /// The loader is present but has no driver (ICD): `VK_ERROR_INCOMPATIBLE_DRIVER`
    /// from `vkCreateInstance`, or zero physical devices (`VK_ERROR_INITIALIZATION_FAILED`
    /// from `vkEnumeratePhysicalDevices`: drivers that find no hardware).
    case noDriver
    /// `vkCreateInstance` (or enumeration) failed for another reason.
    case instanceFailed
    /// Every usable device is a software rasterizer (e.g. lavapipe).
    case onlySoftwareDevices
    /// Devices exist but none has a compute queue.
    case noComputeQueue
}
