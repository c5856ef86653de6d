package import CVulkan

/// The instance-level Vulkan entry points the project uses, resolved once.
// Unchecked: C function pointers (not marked Sendable by the importer), immutable after resolution.
package struct InstanceFunctions: @unchecked Sendable {
    package let destroyInstance: PFN_vkDestroyInstance
    package let enumeratePhysicalDevices: PFN_vkEnumeratePhysicalDevices
    package let getPhysicalDeviceProperties: PFN_vkGetPhysicalDeviceProperties
    /// Nil on a Vulkan 1.0 instance: the driver name is then unknown.
    package let getPhysicalDeviceProperties2: PFN_vkGetPhysicalDeviceProperties2?
    package let getPhysicalDeviceQueueFamilyProperties: PFN_vkGetPhysicalDeviceQueueFamilyProperties
    package let getPhysicalDeviceMemoryProperties: PFN_vkGetPhysicalDeviceMemoryProperties
    package let createDevice: PFN_vkCreateDevice
    package let getDeviceProcAddr: PFN_vkGetDeviceProcAddr
    /// Present only when `VK_EXT_debug_utils` was enabled (validation).
    package let createDebugUtilsMessenger: PFN_vkCreateDebugUtilsMessengerEXT?
    package let destroyDebugUtilsMessenger: PFN_vkDestroyDebugUtilsMessengerEXT?

    /// Resolves every entry point of `instance`; throws when a required one is missing.
    init(_ resolver: ProcResolver, apiVersion: UInt32) throws {
        destroyInstance = try resolver.require("vkDestroyInstance")
        enumeratePhysicalDevices = try resolver.require("vkEnumeratePhysicalDevices")
        getPhysicalDeviceProperties = try resolver.require("vkGetPhysicalDeviceProperties")
        getPhysicalDeviceProperties2 = apiVersion >= kiln_vk_api_version_1_1()
            ? resolver.optional("vkGetPhysicalDeviceProperties2") : nil
        getPhysicalDeviceQueueFamilyProperties = try resolver.require("vkGetPhysicalDeviceQueueFamilyProperties")
        getPhysicalDeviceMemoryProperties = try resolver.require("vkGetPhysicalDeviceMemoryProperties")
        createDevice = try resolver.require("vkCreateDevice")
        getDeviceProcAddr = try resolver.require("vkGetDeviceProcAddr")
        createDebugUtilsMessenger = resolver.optional("vkCreateDebugUtilsMessengerEXT")
        destroyDebugUtilsMessenger = resolver.optional("vkDestroyDebugUtilsMessengerEXT")
    }
}
