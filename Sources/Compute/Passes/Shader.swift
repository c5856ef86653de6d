import CShaders

/// A compute shader of `Shaders/` (committed SPIR-V) and its workgroup shape.
/// Backends compile each one once per job and cache it by name.
package struct Shader: @unchecked Sendable, Hashable {
    /// The `.comp` file's base name.
    package let name: String
    /// The SPIR-V words (static storage of `CShaders`).
    let spirv: UnsafePointer<UInt32>
    /// `spirv`'s size in bytes.
    let size: Int
    /// `local_size_x` and `local_size_y` declared by the shader.
    package let groupSize: (x: Int, y: Int)

    /// A shader named `name` with its SPIR-V and workgroup shape.
    package init(name: String, spirv: UnsafePointer<UInt32>, size: Int, groupSize: (x: Int, y: Int) = (16, 16)) {
        self.name = name
        self.spirv = spirv
        self.size = size
        self.groupSize = groupSize
    }

    package static func == (lhs: Shader, rhs: Shader) -> Bool { lhs.name == rhs.name }
    package func hash(into hasher: inout Hasher) { hasher.combine(name) }
}
