internal import Compute
internal import SPIRV

/// The SPIR-V of every kernel a pass may name (`KernelID`), committed in the
/// `SPIRV` target by `Scripts/shaders`, with the workgroup shape each shader
/// declares, read from its own words so it can never disagree with the GLSL.
enum ShaderLibrary {
    /// One shader's program.
    // Unchecked: `words` points into the SPIRV target's static, immutable storage.
    struct Module: @unchecked Sendable {
        /// The SPIR-V words.
        let words: UnsafePointer<UInt32>
        /// Their size in bytes.
        let size: Int
        /// `local_size_x` and `local_size_y` of the entry point.
        let groupSize: (x: Int, y: Int)
    }

    /// Every module, by kernel name.
    static let modules: [String: Module] = {
        var modules: [String: Module] = [:]
        for index in 0..<kiln_spirv_module_count() {
            let module = kiln_spirv_module_at(index)
            guard let name = module.name, let words = module.words else { continue }
            modules[String(cString: name)] = Module(words: words, size: module.size,
                                                    groupSize: localSize(words, count: module.size / 4))
        }
        return modules
    }()

    /// The module of `kernel`.
    static func module(_ kernel: KernelID) throws(ComputeError) -> Module {
        guard let module = modules[kernel.name] else {
            throw .setupFailed("no SPIR-V for kernel \(kernel) (Scripts/shaders makes it from Shaders/\(kernel).comp)")
        }
        return module
    }

    /// The module of `kernel`'s `_short` shader (`Shaders/<kernel>_short.comp`: the same
    /// computation in shorter workgroups, for short tiles), nil where it has none.
    static func shortModule(_ kernel: KernelID) -> Module? {
        modules[kernel.name + "_short"]
    }

    /// The `LocalSize` execution mode's x and y (SPIR-V specification §3.6: `OpExecutionMode`
    /// is opcode 16, mode `LocalSize` is 17); (1, 1) when the module declares none.
    static func localSize(_ words: UnsafePointer<UInt32>, count: Int) -> (x: Int, y: Int) {
        var index = 5  // after the header: magic, version, generator, bound, schema
        while index < count {
            let wordCount = Int(words[index] >> 16), opcode = words[index] & 0xFFFF
            guard wordCount > 0 else { break }
            if opcode == 16, wordCount >= 6, words[index + 2] == 17 {
                return (Int(words[index + 3]), Int(words[index + 4]))
            }
            index += wordCount
        }
        return (1, 1)
    }
}
