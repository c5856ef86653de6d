package import CVulkan

/// The Vulkan loader library, opened at run time with `dlopen` (never linked),
/// so a machine without Vulkan still runs the CPU path.
// Unchecked: a dlopen handle and a function pointer, immutable; both may be used from any thread.
package struct VulkanLoader: @unchecked Sendable {
    /// The loader's soname, used unless `KILN_VULKAN_LIBRARY` names another path.
    package static let defaultPath = "libvulkan.so.1"
    /// The environment variable that overrides the loader path.
    package static let pathVariable = "KILN_VULKAN_LIBRARY"

    /// The path that was opened.
    package let path: String
    /// The loader's root entry point; everything else is resolved through it.
    package let getInstanceProcAddr: PFN_vkGetInstanceProcAddr

    /// Why the loader could not be opened (the `dlopen` message).
    package struct Failure: Error {
        /// The path that was tried.
        package let path: String
        /// `dlerror()`'s explanation.
        package let message: String
    }

    /// Opens the loader named by `KILN_VULKAN_LIBRARY` in `environment`, or the
    /// system's `libvulkan.so.1`. A path that does not exist is a failure
    /// ("no loader"), never a crash.
    package static func open(environment: [String: String]) -> Result<VulkanLoader, Failure> {
        let override = environment[pathVariable].flatMap { $0.isEmpty ? nil : $0 }
        let path = override ?? defaultPath
        var message = [CChar](repeating: 0, count: 512)
        let entry = message.withUnsafeMutableBufferPointer { buffer in
            kiln_vk_open_loader(path, buffer.baseAddress, buffer.count)
        }
        guard let entry else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            return .failure(Failure(path: path, message: text))
        }
        return .success(VulkanLoader(path: path, getInstanceProcAddr: entry))
    }

    /// Resolves global and instance-level entry points (`instance` nil: global ones).
    package func resolver(for instance: VkInstance?) -> ProcResolver {
        let getInstanceProcAddr = self.getInstanceProcAddr
        return ProcResolver { name in getInstanceProcAddr(instance, name) }
    }
}
