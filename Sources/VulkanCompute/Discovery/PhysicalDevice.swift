package import CVulkan

/// A physical device of a `VulkanInstance`, with what discovery and the
/// compute layer need to know about it.
// Unchecked: a physical-device handle (an opaque pointer) and copied properties, all immutable.
package struct PhysicalDevice: @unchecked Sendable {
    /// The handle, valid while its instance lives.
    package let handle: VkPhysicalDevice
    /// The public description.
    package let info: DeviceInfo
    /// The first queue family with compute support; nil: the device cannot run kernels.
    package let computeQueueFamily: UInt32?
    /// Memory types and heaps, for choosing buffer memory.
    package let memoryProperties: VkPhysicalDeviceMemoryProperties
    /// Limits (dispatch sizes, storage buffer range).
    package let limits: VkPhysicalDeviceLimits

    init(handle: VkPhysicalDevice, index: Int, instance: VulkanInstance) {
        let functions = instance.functions
        var properties = VkPhysicalDeviceProperties()
        functions.getPhysicalDeviceProperties(handle, &properties)
        var memory = VkPhysicalDeviceMemoryProperties()
        functions.getPhysicalDeviceMemoryProperties(handle, &memory)

        self.handle = handle
        self.memoryProperties = memory
        self.limits = properties.limits
        self.computeQueueFamily = Self.computeQueueFamily(handle, functions)
        self.info = DeviceInfo(
            index: index,
            name: string(fromCharTuple: properties.deviceName),
            type: Self.classify(properties.deviceType),
            driver: Self.driverName(handle, properties.apiVersion, instance),
            apiVersion: Self.format(version: properties.apiVersion),
            memoryBytes: Self.deviceLocalBytes(memory),
            usable: computeQueueFamily != nil
        )
    }

    private static func classify(_ type: VkPhysicalDeviceType) -> DeviceType {
        switch type {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: .discrete
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: .integrated
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: .virtual
        // CPU, and OTHER (unknown kind): never treated as a GPU, so never picked by `auto`.
        default: .cpu
        }
    }

    private static func computeQueueFamily(_ handle: VkPhysicalDevice, _ functions: InstanceFunctions) -> UInt32? {
        var count: UInt32 = 0
        functions.getPhysicalDeviceQueueFamilyProperties(handle, &count, nil)
        var families = [VkQueueFamilyProperties](repeating: VkQueueFamilyProperties(), count: Int(count))
        functions.getPhysicalDeviceQueueFamilyProperties(handle, &count, &families)
        let compute = VK_QUEUE_COMPUTE_BIT.rawValue
        return families.prefix(Int(count)).firstIndex { $0.queueFlags & compute != 0 && $0.queueCount > 0 }
            .map(UInt32.init)
    }

    /// VkPhysicalDeviceDriverProperties is core in 1.2: asked only when both sides have it.
    private static func driverName(_ handle: VkPhysicalDevice, _ deviceVersion: UInt32, _ instance: VulkanInstance) -> String {
        let version12 = kiln_vk_make_api_version(0, 1, 2, 0)
        guard let getProperties2 = instance.functions.getPhysicalDeviceProperties2,
              deviceVersion >= version12, instance.apiVersion >= version12 else { return "unknown" }
        var driver = VkPhysicalDeviceDriverProperties()
        driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES
        return withUnsafeMutablePointer(to: &driver) { driverPointer in
            var properties = VkPhysicalDeviceProperties2()
            properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2
            properties.pNext = UnsafeMutableRawPointer(driverPointer)
            getProperties2(handle, &properties)
            let name = string(fromCharTuple: driverPointer.pointee.driverName)
            return name.isEmpty ? "unknown" : name
        }
    }

    private static func deviceLocalBytes(_ memory: VkPhysicalDeviceMemoryProperties) -> UInt64 {
        // A homogeneous tuple (a C array) is laid out as its elements: read them with typed loads.
        withUnsafeBytes(of: memory.memoryHeaps) { raw in
            (0..<Int(memory.memoryHeapCount)).map { raw.load(fromByteOffset: $0 * MemoryLayout<VkMemoryHeap>.stride, as: VkMemoryHeap.self) }
                .filter { $0.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT.rawValue != 0 }
                .reduce(0) { $0 + $1.size }
        }
    }

    /// "major.minor.patch" of a packed Vulkan version.
    package static func format(version: UInt32) -> String {
        "\(kiln_vk_api_version_major(version)).\(kiln_vk_api_version_minor(version)).\(kiln_vk_api_version_patch(version))"
    }
}
