/// One Vulkan physical device as `kiln devices` lists it; encodes to SPEC §5's
/// `devices[]` object.
public struct DeviceInfo: Sendable, Equatable, Codable {
    /// Position in the loader's enumeration (the `<index>` of `vulkan:<index>`).
    public var index: Int
    /// The driver-reported name, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)".
    public var name: String
    /// The classification.
    public var type: DeviceType
    /// The driver's name, e.g. "llvmpipe" or "NVIDIA"; "unknown" before Vulkan 1.2.
    public var driver: String
    /// The device's Vulkan version, "major.minor.patch".
    public var apiVersion: String
    /// Total size of the device-local memory heaps.
    public var memoryBytes: UInt64
    /// Whether the device has a compute queue (and so can run Kiln's kernels).
    public var usable: Bool

    /// A device description.
    public init(index: Int, name: String, type: DeviceType, driver: String,
                apiVersion: String, memoryBytes: UInt64, usable: Bool) {
        self.index = index
        self.name = name
        self.type = type
        self.driver = driver
        self.apiVersion = apiVersion
        self.memoryBytes = memoryBytes
        self.usable = usable
    }
}
