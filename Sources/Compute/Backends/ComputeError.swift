/// Errors of the compute layer: choosing a backend, setting up Vulkan, rendering.
public enum ComputeError: Error, Equatable, CustomStringConvertible {
    /// The preference cannot be met on this machine (`--device gpu` without a
    /// GPU, `--device vulkan` without any device); carries the reason. The CLI exits 69.
    case unavailable(reason: String)
    /// The Vulkan device was lost (`VK_ERROR_DEVICE_LOST` from `call`): the
    /// backend is unusable from now on.
    case deviceLost(call: String)
    /// A Vulkan call failed; `result` is the specification's name (e.g. `VK_ERROR_OUT_OF_DEVICE_MEMORY`).
    case vulkan(call: String, result: String)
    /// Setting up the Vulkan context failed for a reason other than a call result
    /// (missing entry point, no suitable memory type, validation layer missing).
    case setupFailed(String)

    /// True when the error came from the Vulkan device; the image can be rendered on the CPU instead.
    public var isDeviceFailure: Bool {
        if case .unavailable = self { return false }
        return true
    }

    public var description: String {
        switch self {
        case .unavailable(let reason): "required device unavailable: \(reason)"
        case .deviceLost(let call): "Vulkan device lost (VK_ERROR_DEVICE_LOST from \(call))"
        case .vulkan(let call, let result): "\(call) failed: \(result)"
        case .setupFailed(let message): "Vulkan setup failed: \(message)"
        }
    }
}
