/// The GPU kernel a pass runs, named by the base name of its shader in
/// `Shaders/` (`"blur_x"`). Passes name kernels only: which program a backend
/// runs for one (SPIR-V on Vulkan, its workgroup shape) is the backend's
/// business, so a second GPU backend adds a table, not an edit per operation.
public struct KernelID: Sendable, Hashable, CustomStringConvertible {
    /// The shader's base name.
    public let name: String

    /// The kernel of `Shaders/<name>.comp`.
    public init(_ name: String) {
        self.name = name
    }

    public var description: String { name }

    /// The render stage's entry: canonical integer samples to float (`UnpackKernel`).
    public static let unpack = KernelID("unpack")
    /// The render stage's exit: float to canonical integer samples (`PackKernel`).
    public static let pack = KernelID("pack")
}
