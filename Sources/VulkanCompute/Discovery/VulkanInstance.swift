package import CVulkan

/// A `VkInstance` with its entry points, optionally with the Khronos
/// validation layer reporting into a `ValidationRecorder`. Destroyed on deinit.
// Unchecked: immutable handles after init; Vulkan allows instance-level queries from any thread.
package final class VulkanInstance: @unchecked Sendable {
    /// The name of the Khronos validation layer (Debian: vulkan-validationlayers).
    package static let validationLayer = "VK_LAYER_KHRONOS_validation"
    /// The highest Vulkan version the project uses (1.2: driver properties).
    private static let wantedVersion = kiln_vk_make_api_version(0, 1, 2, 0)

    /// The loader the instance came from.
    package let loader: VulkanLoader
    /// The instance handle.
    package let handle: VkInstance
    /// The API version the instance was created with.
    package let apiVersion: UInt32
    /// Instance-level entry points.
    package let functions: InstanceFunctions
    /// Where validation messages go; nil when validation is off.
    package let validation: ValidationRecorder?
    private let messenger: VkDebugUtilsMessengerEXT?

    /// Creates an instance. Throws `VulkanError.call("vkCreateInstance",
    /// VK_ERROR_INCOMPATIBLE_DRIVER)` when the loader finds no driver.
    package init(loader: VulkanLoader, validation: ValidationRecorder? = nil) throws {
        let global = loader.resolver(for: nil)
        let createInstance: PFN_vkCreateInstance = try global.require("vkCreateInstance")
        if validation != nil {
            try Self.requireValidationLayer(global)
        }
        // A Vulkan 1.0 loader rejects any apiVersion above 1.0, so ask for more only when offered.
        var version = kiln_vk_make_api_version(0, 1, 0, 0)
        if let enumerateVersion: PFN_vkEnumerateInstanceVersion = global.optional("vkEnumerateInstanceVersion") {
            var offered: UInt32 = 0
            if enumerateVersion(&offered) == VK_SUCCESS {
                version = min(offered, Self.wantedVersion)
            }
        }
        let recorderPointer = validation.map { Unmanaged.passUnretained($0).toOpaque() }
        var messengerInfo = Self.messengerCreateInfo(userData: recorderPointer)
        let layers = validation == nil ? [] : [Self.validationLayer]
        let extensions = validation == nil ? [] : ["VK_EXT_debug_utils"]

        var instance: VkInstance?
        let result = withCStringArray(layers) { layerNames in
            withCStringArray(extensions) { extensionNames in
                "kiln".withCString { name in
                    var application = VkApplicationInfo()
                    application.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO
                    application.pApplicationName = name
                    application.pEngineName = name
                    application.apiVersion = version
                    return withUnsafePointer(to: &application) { applicationPointer in
                        withUnsafePointer(to: &messengerInfo) { messengerPointer in
                            var info = VkInstanceCreateInfo()
                            info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO
                            // Chained so that messages of vkCreateInstance/vkDestroyInstance are caught too.
                            info.pNext = validation == nil ? nil : UnsafeRawPointer(messengerPointer)
                            info.pApplicationInfo = applicationPointer
                            info.enabledLayerCount = UInt32(layerNames.count)
                            info.enabledExtensionCount = UInt32(extensionNames.count)
                            return layerNames.withUnsafeBufferPointer { layerBuffer in
                                extensionNames.withUnsafeBufferPointer { extensionBuffer in
                                    info.ppEnabledLayerNames = layerBuffer.baseAddress
                                    info.ppEnabledExtensionNames = extensionBuffer.baseAddress
                                    return createInstance(&info, nil, &instance)
                                }
                            }
                        }
                    }
                }
            }
        }
        try VulkanResult.check(result, "vkCreateInstance")
        guard let instance else { throw VulkanError.call("vkCreateInstance", VK_ERROR_INITIALIZATION_FAILED) }

        let functions: InstanceFunctions
        do {
            functions = try InstanceFunctions(loader.resolver(for: instance), apiVersion: version)
        } catch {
            // Without vkDestroyInstance resolved the handle cannot be freed; nothing better to do.
            let destroy: PFN_vkDestroyInstance? = loader.resolver(for: instance).optional("vkDestroyInstance")
            destroy?(instance, nil)
            throw error
        }
        var messenger: VkDebugUtilsMessengerEXT?
        if validation != nil {
            guard let create = functions.createDebugUtilsMessenger else {
                functions.destroyInstance(instance, nil)
                throw VulkanError.validationUnavailable
            }
            let created = create(instance, &messengerInfo, nil, &messenger)
            if created != VK_SUCCESS {
                functions.destroyInstance(instance, nil)
                throw VulkanError.call("vkCreateDebugUtilsMessengerEXT", created)
            }
        }
        self.loader = loader
        self.handle = instance
        self.apiVersion = version
        self.functions = functions
        self.validation = validation
        self.messenger = messenger
    }

    deinit {
        if let messenger {
            functions.destroyDebugUtilsMessenger?(handle, messenger, nil)
        }
        functions.destroyInstance(handle, nil)
    }

    /// Every physical device, in the loader's order (the `index` of `kiln devices`).
    package func physicalDevices() throws -> [PhysicalDevice] {
        var count: UInt32 = 0
        try VulkanResult.check(functions.enumeratePhysicalDevices(handle, &count, nil), "vkEnumeratePhysicalDevices")
        var handles = [VkPhysicalDevice?](repeating: nil, count: Int(count))
        try VulkanResult.check(functions.enumeratePhysicalDevices(handle, &count, &handles), "vkEnumeratePhysicalDevices")
        return handles.prefix(Int(count)).enumerated().compactMap { index, handle in
            handle.map { PhysicalDevice(handle: $0, index: index, instance: self) }
        }
    }

    private static func requireValidationLayer(_ global: ProcResolver) throws {
        let enumerate: PFN_vkEnumerateInstanceLayerProperties = try global.require("vkEnumerateInstanceLayerProperties")
        var count: UInt32 = 0
        try VulkanResult.check(enumerate(&count, nil), "vkEnumerateInstanceLayerProperties")
        var layers = [VkLayerProperties](repeating: VkLayerProperties(), count: Int(count))
        try VulkanResult.check(enumerate(&count, &layers), "vkEnumerateInstanceLayerProperties")
        let names = layers.prefix(Int(count)).map { string(fromCharTuple: $0.layerName) }
        guard names.contains(validationLayer) else { throw VulkanError.validationUnavailable }
    }

    private static func messengerCreateInfo(userData: UnsafeMutableRawPointer?) -> VkDebugUtilsMessengerCreateInfoEXT {
        var info = VkDebugUtilsMessengerCreateInfoEXT()
        info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT
        info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT.rawValue
            | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT.rawValue
        info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT.rawValue
            | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT.rawValue
            | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT.rawValue
        info.pfnUserCallback = validationCallback
        info.pUserData = userData
        return info
    }
}

/// The debug-utils callback: forwards each message to the instance's recorder.
private func validationCallback(
    severity: VkDebugUtilsMessageSeverityFlagBitsEXT,
    types: VkDebugUtilsMessageTypeFlagsEXT,
    data: UnsafePointer<VkDebugUtilsMessengerCallbackDataEXT>?,
    userData: UnsafeMutableRawPointer?
) -> VkBool32 {
    guard let data, let userData else { return VkBool32(VK_FALSE) }
    let recorder = Unmanaged<ValidationRecorder>.fromOpaque(userData).takeUnretainedValue()
    let isError = severity.rawValue & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT.rawValue != 0
    recorder.record(.init(
        severity: isError ? "error" : "warning",
        identifier: data.pointee.pMessageIdName.map { String(cString: $0) } ?? "",
        text: data.pointee.pMessage.map { String(cString: $0) } ?? ""
    ))
    // VK_FALSE: never abort the call that triggered the message.
    return VkBool32(VK_FALSE)
}
