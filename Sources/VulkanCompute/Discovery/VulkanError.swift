package import CVulkan

/// A failed Vulkan call below the compute layer: instance creation,
/// enumeration, or a missing entry point.
package enum VulkanError: Error, Equatable, CustomStringConvertible {
    /// `call` returned `result`.
    case call(String, VkResult)
    /// The loader or driver does not provide the entry point.
    case missingFunction(String)
    /// Validation was asked for, but `VK_LAYER_KHRONOS_validation` or
    /// `VK_EXT_debug_utils` is not installed.
    case validationUnavailable

    package var description: String {
        switch self {
        case .call(let call, let result): "\(call) failed: \(VulkanResult.name(result))"
        case .missingFunction(let name): "the Vulkan loader has no \(name)"
        case .validationUnavailable:
            "Vulkan validation requested but VK_LAYER_KHRONOS_validation is not installed (Debian: vulkan-validationlayers)"
        }
    }
}

/// Checks `VkResult`s and names them for messages.
package enum VulkanResult {
    /// Throws `VulkanError.call` unless `result` is `VK_SUCCESS` (or another
    /// non-negative status such as `VK_INCOMPLETE`).
    package static func check(_ result: VkResult, _ call: String) throws {
        if result.rawValue < 0 { throw VulkanError.call(call, result) }
    }

    /// The specification's name of `result`, e.g. `VK_ERROR_DEVICE_LOST`.
    package static func name(_ result: VkResult) -> String {
        switch result {
        case VK_SUCCESS: "VK_SUCCESS"
        case VK_NOT_READY: "VK_NOT_READY"
        case VK_TIMEOUT: "VK_TIMEOUT"
        case VK_INCOMPLETE: "VK_INCOMPLETE"
        case VK_ERROR_OUT_OF_HOST_MEMORY: "VK_ERROR_OUT_OF_HOST_MEMORY"
        case VK_ERROR_OUT_OF_DEVICE_MEMORY: "VK_ERROR_OUT_OF_DEVICE_MEMORY"
        case VK_ERROR_INITIALIZATION_FAILED: "VK_ERROR_INITIALIZATION_FAILED"
        case VK_ERROR_DEVICE_LOST: "VK_ERROR_DEVICE_LOST"
        case VK_ERROR_MEMORY_MAP_FAILED: "VK_ERROR_MEMORY_MAP_FAILED"
        case VK_ERROR_LAYER_NOT_PRESENT: "VK_ERROR_LAYER_NOT_PRESENT"
        case VK_ERROR_EXTENSION_NOT_PRESENT: "VK_ERROR_EXTENSION_NOT_PRESENT"
        case VK_ERROR_FEATURE_NOT_PRESENT: "VK_ERROR_FEATURE_NOT_PRESENT"
        case VK_ERROR_INCOMPATIBLE_DRIVER: "VK_ERROR_INCOMPATIBLE_DRIVER"
        case VK_ERROR_TOO_MANY_OBJECTS: "VK_ERROR_TOO_MANY_OBJECTS"
        case VK_ERROR_FORMAT_NOT_SUPPORTED: "VK_ERROR_FORMAT_NOT_SUPPORTED"
        case VK_ERROR_FRAGMENTED_POOL: "VK_ERROR_FRAGMENTED_POOL"
        case VK_ERROR_OUT_OF_POOL_MEMORY: "VK_ERROR_OUT_OF_POOL_MEMORY"
        case VK_ERROR_UNKNOWN: "VK_ERROR_UNKNOWN"
        default: "VkResult(\(result.rawValue))"
        }
    }
}
