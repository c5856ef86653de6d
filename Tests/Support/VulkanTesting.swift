import Foundation
import Testing
public import VulkanCompute

/// Vulkan backends for tests, always with the Khronos validation layer on and
/// its messages captured: a test that used Vulkan fails on any message.
public enum VulkanTesting {
    /// The device `--device vulkan` would use (lavapipe in CI); fails the test when there is none.
    public static func vulkanDevice() throws -> DeviceInfo {
        try #require(VulkanAvailability.current.vulkanDevice,
                     "no Vulkan device: \(VulkanAvailability.current.skipReason ?? "")")
    }

    /// A backend on `vulkanDevice()` whose validation messages go to `recorder`;
    /// the other arguments are `VulkanOptions`' test hooks.
    package static func backend(recorder: ValidationRecorder, deviceLostAt: Int? = nil,
                               maxPixelsPerDispatch: Int? = nil, stripsOnDevice: Bool = true,
                               copiesThroughStaging: Bool = false, shortRuns: Bool = true,
                               submissionTaps: Int? = nil) throws -> VulkanBackend {
        var options = VulkanOptions()
        options.validation = recorder
        options.deviceLostAtSubmission = deviceLostAt
        options.maxPixelsPerDispatch = maxPixelsPerDispatch
        options.stripsOnDevice = stripsOnDevice
        options.copiesThroughStaging = copiesThroughStaging
        options.shortRuns = shortRuns
        if let submissionTaps { options.submissionTaps = submissionTaps }
        return try VulkanBackend(device: vulkanDevice(), options: options)
    }

    /// Fails the test on any validation message; call after the backend is released,
    /// so messages of device and instance destruction are counted.
    package static func expectNoValidationMessages(_ recorder: ValidationRecorder,
                                                  sourceLocation: SourceLocation = #_sourceLocation) {
        let messages = recorder.recorded
        #expect(messages.isEmpty, "validation messages:\n\(messages.map(\.description).joined(separator: "\n"))",
                sourceLocation: sourceLocation)
    }
}

/// Runs `body` with a Vulkan backend on the `--device vulkan` device with the
/// validation layer on, then fails the test on any validation message. For
/// `.requiresVulkan` tests.
public func withVulkan(maxPixelsPerDispatch: Int? = nil, stripsOnDevice: Bool = true, copiesThroughStaging: Bool = false,
                       shortRuns: Bool = true, submissionTaps: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation,
                       _ body: (VulkanBackend) throws -> Void) throws {
    let recorder = ValidationRecorder()
    do {
        try body(try VulkanTesting.backend(recorder: recorder, maxPixelsPerDispatch: maxPixelsPerDispatch,
                                           stripsOnDevice: stripsOnDevice, copiesThroughStaging: copiesThroughStaging,
                                           shortRuns: shortRuns, submissionTaps: submissionTaps))
    }
    VulkanTesting.expectNoValidationMessages(recorder, sourceLocation: sourceLocation)
}

/// As `withVulkan` where this machine has a Vulkan device; elsewhere (none, or
/// `KILN_SKIP_VULKAN_TESTS=1`) `body` gets nil and the output says why the
/// Vulkan part did not run. For tests whose CPU checks must run on any machine.
public func withVulkanIfAvailable(sourceLocation: SourceLocation = #_sourceLocation,
                                  _ body: (VulkanBackend?) throws -> Void) throws {
    if let reason = VulkanAvailability.current.skipReason {
        print("\(sourceLocation.fileName):\(sourceLocation.line): CPU checks only; the Vulkan part is skipped: \(reason)")
        try body(nil)
        return
    }
    try withVulkan(sourceLocation: sourceLocation) { try body($0) }
}
