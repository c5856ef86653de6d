package import CVulkan

/// Resolves Vulkan entry points by name through `vkGetInstanceProcAddr` or
/// `vkGetDeviceProcAddr` (the volk pattern: nothing is linked).
package struct ProcResolver {
    private let lookup: (String) -> PFN_vkVoidFunction?

    /// A resolver backed by `lookup`, which returns nil for an unknown name.
    package init(_ lookup: @escaping (String) -> PFN_vkVoidFunction?) {
        self.lookup = lookup
    }

    /// The entry point `name` as the function type `F` (a `PFN_vk…` type).
    package func require<F>(_ name: String) throws -> F {
        guard let function: F = optional(name) else { throw VulkanError.missingFunction(name) }
        return function
    }

    /// The entry point `name`, or nil when the loader or driver lacks it.
    package func optional<F>(_ name: String) -> F? {
        guard let function = lookup(name) else { return nil }
        // Every Vulkan entry point has this size; the name decides the real signature.
        return unsafeBitCast(function, to: F.self)
    }
}
