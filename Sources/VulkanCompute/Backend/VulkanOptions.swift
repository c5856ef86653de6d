import Foundation

/// How a Vulkan backend is set up, beyond the device.
public struct VulkanOptions: Sendable {
    /// Enables the Khronos validation layer; its messages go to the recorder.
    /// Off in production (`KILN_VULKAN_VALIDATION=1` turns it on, printing to standard error).
    package var validation: ValidationRecorder?
    /// Fault injection: the queue submission with this 1-based number reports
    /// `VK_ERROR_DEVICE_LOST` (`KILN_FAULT_DEVICE_LOST_AT=N`); nil: never.
    public var deviceLostAtSubmission: Int?
    /// Caps the pixels one dispatch covers (rounded down to the workgroup size);
    /// nil: as many as the device's `maxStorageBufferRange` allows. Tests lower it
    /// to exercise chunking on small images.
    package var maxPixelsPerDispatch: Int?
    /// Whether strip execution keeps every window on the device (`DeviceStrips`:
    /// stored rows up, packed rows down, one submission per strip); false runs
    /// a pass at a time through host memory, as before (`KILN_VULKAN_STRIPS=host`,
    /// for comparing the two).
    package var stripsOnDevice: Bool
    /// Treats the device's memory as its own even where the host shares it, so
    /// device strips copy stored rows through staging as on a discrete GPU
    /// (tests run that path on lavapipe).
    package var copiesThroughStaging: Bool
    /// Whether a kernel with a short program (`blur_y_short`) runs it over short tiles
    /// (``ComputeKernel/program(for:)``); false runs every tile in the kernel's own long runs
    /// (`KILN_VULKAN_RUNS=long`, for comparing the two on a GPU: `Scripts/gpu-check`).
    package var shortRuns: Bool
    /// The most work one submission carries, in taps (``VulkanBackend/submissionTaps``): 2^28 (about 268 million).
    /// Measured on lavapipe on a loaded 2-core machine (2026-11-28): a blur σ 200 (radius 600, past the shader's
    /// shared-memory apron: every tap a load of device memory) of 2600×300, 1.87 × 10⁹ taps, took 31 s in one
    /// submission, about 6 × 10⁷ taps a second: the bound is 4–5 s of such work there, a small part of the 60 s
    /// stall watchdog even with two images sharing the cores. On a GPU it is a millisecond or so, and it binds
    /// only such blurs (a blur σ 8 strip of 8 MiB is about 5 × 10⁷ taps). Tests lower it to part small strips.
    package var submissionTaps: Int
    /// The environment the loader path (`KILN_VULKAN_LIBRARY`) is read from.
    public var environment: [String: String]

    /// No validation, no fault injection, the process's environment.
    public init() {
        validation = nil
        deviceLostAtSubmission = nil
        maxPixelsPerDispatch = nil
        stripsOnDevice = true
        copiesThroughStaging = false
        shortRuns = true
        submissionTaps = 1 << 28
        environment = ProcessInfo.processInfo.environment
    }

    /// Options read from `KILN_VULKAN_VALIDATION`, `KILN_FAULT_DEVICE_LOST_AT`, `KILN_VULKAN_STRIPS`
    /// and `KILN_VULKAN_RUNS`.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> VulkanOptions {
        var options = VulkanOptions()
        options.environment = environment
        if environment["KILN_VULKAN_VALIDATION"] == "1" {
            options.validation = ValidationRecorder(echo: true)
        }
        options.deviceLostAtSubmission = environment["KILN_FAULT_DEVICE_LOST_AT"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
        options.stripsOnDevice = environment["KILN_VULKAN_STRIPS"] != "host"
        options.shortRuns = environment["KILN_VULKAN_RUNS"] != "long"
        return options
    }
}
