public import VulkanCompute
import Foundation
import Testing

/// What this machine offers the Vulkan tests, taken from what discovery
/// reports — never assumed. Each case gives tests a definite expectation:
/// with no Vulkan, `--device vulkan` must fail naming the reason; with only a
/// software device (lavapipe), `auto` must stay on the CPU; with a GPU, `auto`
/// must use it.
public enum VulkanAvailability: Sendable {
    /// `KILN_SKIP_VULKAN_TESTS=1`: Vulkan is not touched (discovery does not even run).
    case skipped
    /// No usable Vulkan device (no loader, no driver, …; the report's `reasonCode` says which).
    case absent(DeviceReport)
    /// Usable devices, all software (e.g. lavapipe): `--device vulkan` takes one, `auto` the CPU.
    case softwareOnly(DeviceReport)
    /// A usable hardware device: `auto` and `--device gpu` use it.
    case gpu(DeviceReport)

    /// The variable that skips every test needing Vulkan.
    public static let skipVariable = "KILN_SKIP_VULKAN_TESTS"
    /// The variable that makes a missing Vulkan device a failure (CI, where lavapipe is installed).
    public static let requireVariable = "KILN_REQUIRE_VULKAN"

    /// This process's availability, discovered once.
    public static let current = detect(environment: ProcessInfo.processInfo.environment)

    /// The availability under `environment` (`KILN_VULKAN_LIBRARY` included).
    public static func detect(environment: [String: String]) -> VulkanAvailability {
        if environment[skipVariable] == "1" { return .skipped }
        let report = DeviceDiscovery.discover(environment: environment)
        if report.supportsGPU { return .gpu(report) }
        return report.vulkanDevice == nil ? .absent(report) : .softwareOnly(report)
    }

    /// The discovery report; nil when skipped.
    public var report: DeviceReport? {
        switch self {
        case .skipped: nil
        case .absent(let report), .softwareOnly(let report), .gpu(let report): report
        }
    }

    /// The device `--device vulkan` uses; nil when skipped or absent.
    public var vulkanDevice: DeviceInfo? { report?.vulkanDevice }

    /// Whether a Vulkan loader library was found (a driver may still be missing).
    public var hasLoader: Bool { report.map { $0.reasonCode != .noLoader } ?? false }

    /// Why tests needing a Vulkan device do not run here; nil when they do.
    public var skipReason: String? {
        switch self {
        case .skipped: "\(Self.skipVariable)=1: tests that need a Vulkan device are skipped"
        case .absent(let report): "no Vulkan device on this machine (\(report.reasonCode?.rawValue ?? "?")): \(report.reason)"
        case .softwareOnly, .gpu: nil
        }
    }

    /// The `--device` values the CLI tests exercise: `vulkan` too unless skipped (where
    /// Vulkan is absent the tests expect its definite failure, exit 69).
    public var cliDevices: [String] {
        if case .skipped = self { return ["cpu"] }
        return ["cpu", "vulkan"]
    }
}

extension Trait where Self == ConditionTrait {
    /// For tests that need a Vulkan device: they run where discovery finds one
    /// (lavapipe in CI) and say why they skip elsewhere. CI sets
    /// `KILN_REQUIRE_VULKAN=1`, under which a missing device fails
    /// `VulkanPresenceTests` instead of passing quietly.
    public static var requiresVulkan: Self {
        let reason = VulkanAvailability.current.skipReason
        return .enabled(if: reason == nil, Comment(rawValue: reason ?? "a Vulkan device is available"))
    }

    /// For tests that need the Vulkan loader library (not necessarily a driver).
    public static var requiresVulkanLoader: Self {
        .enabled(if: VulkanAvailability.current.hasLoader,
                 "needs the Vulkan loader library (not found, or \(VulkanAvailability.skipVariable)=1)")
    }
}
