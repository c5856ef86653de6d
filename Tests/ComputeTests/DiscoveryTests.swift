import Devices
import Foundation
import Testing

@Suite("Device discovery")
struct DiscoveryTests {
    @Test("lavapipe is listed as a usable cpu device; auto stays on the CPU",
          .requiresVulkan)
    func softwareDeviceOnly() throws {
        let report = DeviceDiscovery.discover()
        let llvmpipe = try #require(report.devices.first { $0.name.hasPrefix("llvmpipe") },
                                    "no llvmpipe device: \(report.text)")
        #expect(llvmpipe.type == .cpu)
        #expect(llvmpipe.usable)
        #expect(llvmpipe.driver == "llvmpipe")
        #expect(llvmpipe.memoryBytes > 0)
        #expect(!report.supportsGPU)
        #expect(report.supportedResources.isEmpty)
        #expect(report.auto == "cpu")
        #expect(report.reasonCode == .onlySoftwareDevices)
        #expect(report.vulkanDevice?.index == llvmpipe.index)
    }

    @Test("KILN_VULKAN_LIBRARY naming a missing file reads as noLoader")
    func missingLoader() {
        let report = DeviceDiscovery.discover(environment: ["KILN_VULKAN_LIBRARY": "/nonexistent/libvulkan.so.1"])
        #expect(report.reasonCode == .noLoader)
        #expect(report.devices.isEmpty)
        #expect(report.auto == "cpu")
        #expect(report.reason.contains("/nonexistent/libvulkan.so.1"))
    }
}
