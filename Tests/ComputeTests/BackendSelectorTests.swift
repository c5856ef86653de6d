import Compute
import VulkanCompute
import KilnTestSupport
import ImageCore
import Testing

@Suite("Backend choice (--device)")
struct BackendSelectorTests {
    /// A report with one usable device of `type`.
    static func report(_ type: DeviceType, name: String = "Test Device") -> DeviceReport {
        let device = DeviceInfo(index: 0, name: name, type: type, driver: "test", apiVersion: "1.3.0",
                                memoryBytes: 1 << 30, usable: true)
        return DeviceReport(devices: [device], reasonCode: type.isHardware ? nil : .onlySoftwareDevices,
                            reason: "test")
    }

    @Test("cpu never evaluates the device report (Vulkan is not even loaded)")
    func cpuSkipsDiscovery() throws {
        let choice = try BackendSelector.choose(.cpu, report: {
            Issue.record("discovery ran for --device cpu")
            return Self.report(.discrete)
        }())
        #expect(choice.backend.kind == .cpu)
        #expect(choice.backend.label == "CPU")
    }

    @Test("auto with only a software device uses the CPU and says why")
    func autoAvoidsSoftwareDevices() throws {
        let choice = try BackendSelector.choose(.auto, report: Self.report(.cpu, name: "llvmpipe"))
        #expect(choice.backend.kind == .cpu)
        #expect(choice.note == "CPU (no GPU, only software Vulkan)")
    }

    @Test("auto with no loader says so")
    func autoWithoutLoader() throws {
        let report = DeviceDiscovery.discover(environment: ["KILN_VULKAN_LIBRARY": "/nonexistent"])
        let choice = try BackendSelector.choose(.auto, report: report)
        #expect(choice.backend.kind == .cpu)
        #expect(choice.note == "CPU (no Vulkan loader)")
    }

    @Test("gpu without a hardware device throws unavailable with the reason")
    func gpuRequired() {
        let report = DeviceReport(devices: [], reasonCode: .noDriver, reason: "no driver here")
        #expect(throws: ComputeError.unavailable(reason: "no GPU: no driver here")) {
            try BackendSelector.choose(.gpu, report: report)
        }
    }

    @Test("vulkan without any device throws unavailable")
    func vulkanRequired() {
        let report = DeviceDiscovery.discover(environment: ["KILN_VULKAN_LIBRARY": "/nonexistent"])
        #expect(throws: ComputeError.self) { try BackendSelector.choose(.vulkan, report: report) }
    }

    @Test("auto falls back to the CPU when the GPU cannot be set up", .requiresVulkan)
    func autoFallsBackOnSetupFailure() throws {
        // The report names a discrete GPU this machine does not have.
        let choice = try BackendSelector.choose(.auto, report: Self.report(.discrete, name: "Imaginary GPU"))
        #expect(choice.backend.kind == .cpu)
        #expect(choice.note?.hasPrefix("CPU (Vulkan setup failed") == true)
    }

    @Test("vulkan takes the device discovery reports, software or not", .requiresVulkan)
    func vulkanTakesTheReportedDevice() throws {
        let report = try #require(VulkanAvailability.current.report)
        let device = try #require(report.vulkanDevice)
        let choice = try BackendSelector.choose(.vulkan, report: report)
        #expect(choice.backend.kind == .vulkan)
        #expect(choice.backend.label == "Vulkan · \(device.name)")
    }

    @Test("auto uses the GPU where discovery reports one, else the CPU saying why",
          .enabled(if: VulkanAvailability.current.report != nil, "KILN_SKIP_VULKAN_TESTS=1: discovery is not run"))
    func autoFollowsTheReport() throws {
        let report = try #require(VulkanAvailability.current.report)
        let choice = try BackendSelector.choose(.auto, report: report)
        if let gpu = report.autoDevice {
            #expect(choice.backend.kind == .vulkan && choice.backend.label == "Vulkan · \(gpu.name)")
        } else {
            #expect(choice.backend.kind == .cpu)
            #expect(choice.note?.hasPrefix("CPU (") == true, "\(choice.note ?? "no note")")
            #expect(throws: ComputeError.self) { try BackendSelector.choose(.gpu, report: report) }
        }
    }
}
