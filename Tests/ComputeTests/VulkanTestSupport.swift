import Compute
import Devices
import Foundation
import Testing

extension Trait where Self == ConditionTrait {
    /// For tests that need a Vulkan device (lavapipe in CI). They run unless
    /// `KILN_SKIP_VULKAN_TESTS=1`, so on a machine without Vulkan they fail:
    /// a broken CI image cannot pass silently.
    static var requiresVulkan: Self {
        .enabled(if: ProcessInfo.processInfo.environment["KILN_SKIP_VULKAN_TESTS"] != "1",
                 "KILN_SKIP_VULKAN_TESTS=1: tests that need a Vulkan device (lavapipe) are skipped")
    }
}

/// Builds Vulkan backends for tests, always with the Khronos validation layer.
enum VulkanTestSupport {
    /// The device `--device vulkan` would use (lavapipe in CI); fails the test when there is none.
    static func vulkanDevice() throws -> DeviceInfo {
        let report = DeviceDiscovery.discover()
        return try #require(report.vulkanDevice, "no Vulkan device on this machine: \(report.reason)")
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
