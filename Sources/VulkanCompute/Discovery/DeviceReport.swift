/// What discovery found: every Vulkan device, whether `.gpu` is supported,
/// what `--device auto` would pick, and why there is no GPU when there is none.
///
/// `json` is exactly the object of SPEC §5 `kiln devices --json`:
/// `{"devices":[…],"supportedResources":["gpu"]|[],"auto":"cpu"|"vulkan:<index>",
/// "reasonCode":null|"<code>","reason":"…"}`; `Codable` uses the same keys
/// and values (in whatever key order the encoder picks) and reads it back.
public struct DeviceReport: Sendable, Equatable, Codable {
    /// Every physical device, in the loader's order.
    public var devices: [DeviceInfo]
    /// Why there is no usable GPU; nil when there is one.
    public var reasonCode: NoGPUReason?
    /// A sentence for people: the device `auto` uses, or why there is no GPU.
    public var reason: String

    /// A report; `reasonCode` nil requires a usable hardware device in `devices`.
    public init(devices: [DeviceInfo], reasonCode: NoGPUReason?, reason: String) {
        self.devices = devices
        self.reasonCode = reasonCode
        self.reason = reason
    }

    /// True when a hardware (discrete, integrated or virtual) device is usable:
    /// the machine supports the `.gpu` resource.
    public var supportsGPU: Bool { autoDevice != nil }

    /// The device `--device auto` uses: the best usable hardware device
    /// (discrete > integrated > virtual); nil means the CPU path. Never a
    /// software device (it is slower than the CPU path and looks like a hang).
    public var autoDevice: DeviceInfo? { best(includingSoftware: false) }

    /// The device `--device vulkan` uses: the best usable device, software included.
    public var vulkanDevice: DeviceInfo? { best(includingSoftware: true) }

    /// `supportedResources` as SPEC §5 spells it: `["gpu"]` or `[]`.
    public var supportedResources: [String] { supportsGPU ? ["gpu"] : [] }

    /// `auto` as SPEC §5 spells it: `"cpu"` or `"vulkan:<index>"`.
    public var auto: String { autoDevice.map { "vulkan:\($0.index)" } ?? "cpu" }

    private func best(includingSoftware: Bool) -> DeviceInfo? {
        devices
            .filter { $0.usable && (includingSoftware || $0.type.isHardware) }
            // Stable: among equals, the lowest index wins.
            .enumerated()
            .max { ($0.element.type.rank, -$0.offset) < ($1.element.type.rank, -$1.offset) }?
            .element
    }

    private enum CodingKeys: String, CodingKey {
        case devices, supportedResources, auto, reasonCode, reason
    }

    /// Decodes SPEC §5's object; `supportedResources` and `auto` are derived, so they are not read back.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        devices = try container.decode([DeviceInfo].self, forKey: .devices)
        reasonCode = try container.decodeIfPresent(NoGPUReason.self, forKey: .reasonCode)
        reason = try container.decode(String.self, forKey: .reason)
    }

    /// Encodes SPEC §5's members, with `"reasonCode":null` when a GPU is usable.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(devices, forKey: .devices)
        try container.encode(supportedResources, forKey: .supportedResources)
        try container.encode(auto, forKey: .auto)
        try container.encode(reasonCode, forKey: .reasonCode)
        try container.encode(reason, forKey: .reason)
    }
}
