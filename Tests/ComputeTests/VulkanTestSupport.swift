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
