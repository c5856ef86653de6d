import Compute
import Devices
import Foundation
import Testing

extension Trait where Self == ConditionTrait {
    /// For tests that need a Vulkan device (lavapipe in CI). They run unless
    /// `KILN_SKIP_VULKAN_TESTS=1`, so on a machine without Vulkan they fail.
    static var requiresVulkan: Self {
        .enabled(if: ProcessInfo.processInfo.environment["KILN_SKIP_VULKAN_TESTS"] != "1",
                 "KILN_SKIP_VULKAN_TESTS=1: tests that need a Vulkan device (lavapipe) are skipped")
    }
}

/// Runs `body` with a Vulkan backend on the `--device vulkan` device with the
/// validation layer on, then fails the test on any validation message.
func withVulkan(maxPixelsPerDispatch: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation,
                _ body: (VulkanBackend) throws -> Void) throws {
    let recorder = ValidationRecorder()
    do {
        let report = DeviceDiscovery.discover()
        let device = try #require(report.vulkanDevice, "no Vulkan device on this machine: \(report.reason)")
        var options = VulkanOptions()
        options.validation = recorder
        options.maxPixelsPerDispatch = maxPixelsPerDispatch
        try body(try VulkanBackend(device: device, options: options))
    }
    let messages = recorder.recorded
    #expect(messages.isEmpty, "validation messages:\n\(messages.map(\.description).joined(separator: "\n"))",
            sourceLocation: sourceLocation)
}
