import Foundation
import KilnTestSupport
import Testing

/// Runs `body`, a test of `kiln --device <device>`, where this machine can
/// render on that device. Where it cannot — `vulkan` with no Vulkan device, as
/// discovery reports — the test checks the definite outcome instead: exit 69
/// naming the reason, nothing written. (`VulkanAvailability.cliDevices` leaves
/// `vulkan` out altogether under `KILN_SKIP_VULKAN_TESTS=1`.)
func onDevice(_ device: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) throws {
    guard device == "vulkan", case .absent(let report) = VulkanAvailability.current else { return try body() }
    let out = try TemporaryDirectory()
    let r = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", out.join("o"), "--device", "vulkan",
                      "--progress", "none"])
    #expect(r.status == 69, "--device vulkan without a Vulkan device: \(r.stderr)", sourceLocation: sourceLocation)
    #expect(r.stderr.contains("no usable Vulkan device") && r.stderr.contains(report.reason.prefix(20)),
            "the reason is named (\(report.reason)): \(r.stderr)", sourceLocation: sourceLocation)
    #expect(!FileManager.default.fileExists(atPath: out.join("o")), "nothing written", sourceLocation: sourceLocation)
}
