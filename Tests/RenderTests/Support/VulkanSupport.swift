import Compute
import Devices
import Foundation
import KilnTestSupport
import Testing

/// Runs `body` with a Vulkan backend on the `--device vulkan` device with the
/// validation layer on, then fails the test on any validation message. For
/// `.requiresVulkan` tests.
func withVulkan(maxPixelsPerDispatch: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation,
                _ body: (VulkanBackend) throws -> Void) throws {
    let recorder = ValidationRecorder()
    do {
        let device = try #require(VulkanAvailability.current.vulkanDevice,
                                  "no Vulkan device: \(VulkanAvailability.current.skipReason ?? "")")
        var options = VulkanOptions()
        options.validation = recorder
        options.maxPixelsPerDispatch = maxPixelsPerDispatch
        try body(try VulkanBackend(device: device, options: options))
    }
    let messages = recorder.recorded
    #expect(messages.isEmpty, "validation messages:\n\(messages.map(\.description).joined(separator: "\n"))",
            sourceLocation: sourceLocation)
}

/// As `withVulkan` where this machine has a Vulkan device; elsewhere (none, or
/// `KILN_SKIP_VULKAN_TESTS=1`) `body` gets nil and the output says why the
/// Vulkan part did not run. For tests whose CPU checks must run on any machine.
func withVulkanIfAvailable(sourceLocation: SourceLocation = #_sourceLocation,
                           _ body: (VulkanBackend?) throws -> Void) throws {
    if let reason = VulkanAvailability.current.skipReason {
        print("\(sourceLocation.fileName):\(sourceLocation.line): CPU checks only; the Vulkan part is skipped: \(reason)")
        try body(nil)
        return
    }
    try withVulkan(sourceLocation: sourceLocation) { try body($0) }
}
