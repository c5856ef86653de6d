/// How a Vulkan device is classified (SPEC §3); the raw value is the JSON `type`.
public enum DeviceType: String, Sendable, Codable, CaseIterable {
    /// A discrete GPU.
    case discrete
    /// A GPU integrated with the CPU.
    case integrated
    /// A virtualized GPU (e.g. passed through to a VM).
    case virtual
    /// A software rasterizer on the CPU (Mesa lavapipe/llvmpipe, SwiftShader).
    case cpu

    /// True for real GPUs: only these make `.gpu` supported or are picked by `auto`.
    public var isHardware: Bool { self != .cpu }

    /// Preference among usable devices: discrete > integrated > virtual > cpu.
    var rank: Int {
        switch self {
        case .discrete: 3
        case .integrated: 2
        case .virtual: 1
        case .cpu: 0
        }
    }
}
