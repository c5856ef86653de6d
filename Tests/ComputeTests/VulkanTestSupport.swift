import Compute
import Devices
import Foundation
import KilnTestSupport
import Testing

/// Builds Vulkan backends for tests, always with the Khronos validation layer.
enum VulkanTestSupport {
    /// The device `--device vulkan` would use (lavapipe in CI); fails the test when there is none.
    static func vulkanDevice() throws -> DeviceInfo {
        try #require(VulkanAvailability.current.vulkanDevice,
                     "no Vulkan device: \(VulkanAvailability.current.skipReason ?? "")")
    }

    /// A backend on `vulkanDevice()` whose validation messages go to `recorder`;
    /// the other arguments are `VulkanOptions`' test hooks.
    static func backend(recorder: ValidationRecorder, deviceLostAt: Int? = nil,
                        maxPixelsPerDispatch: Int? = nil) throws -> VulkanBackend {
        var options = VulkanOptions()
        options.validation = recorder
        options.deviceLostAtSubmission = deviceLostAt
        options.maxPixelsPerDispatch = maxPixelsPerDispatch
        return try VulkanBackend(device: vulkanDevice(), options: options)
    }

    /// Fails the test on any validation message; call after the backend is released,
    /// so messages of device and instance destruction are counted.
    static func expectNoValidationMessages(_ recorder: ValidationRecorder,
                                           sourceLocation: SourceLocation = #_sourceLocation) {
        let messages = recorder.recorded
        #expect(messages.isEmpty, "validation messages:\n\(messages.map(\.description).joined(separator: "\n"))",
                sourceLocation: sourceLocation)
    }
}
