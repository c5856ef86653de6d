import VulkanCompute
import Foundation
import KilnTestSupport
import Testing

@Suite("Device discovery")
struct DiscoveryTests {
    /// Whatever this machine has, the report must be consistent with it: each
    /// kind of machine has its own definite expectations.
    @Test("the report is consistent with what this machine has (no Vulkan, only software, a GPU)",
          .enabled(if: VulkanAvailability.current.report != nil, "KILN_SKIP_VULKAN_TESTS=1: discovery is not run"))
    func reportMatchesTheMachine() throws {
        let availability = VulkanAvailability.current
        let report = try #require(availability.report)
        for device in report.devices where device.usable {
            #expect(!device.name.isEmpty && !device.driver.isEmpty && device.apiVersion.hasPrefix("1."), "\(device)")
            #expect(device.memoryBytes > 0, "\(device)")
        }
        let decoded = try JSONDecoder().decode(DeviceReport.self, from: Data(report.json.utf8))
        #expect(decoded == report)
        switch availability {
        case .skipped:
            Issue.record("discovery ran although skipped")
        case .absent:
            #expect(report.vulkanDevice == nil)
            #expect(!report.supportsGPU && report.supportedResources.isEmpty && report.auto == "cpu")
            #expect([.noLoader, .noDriver, .instanceFailed, .noComputeQueue].contains(report.reasonCode), "\(report.json)")
            #expect(!report.reason.isEmpty)
        case .softwareOnly:
            let device = try #require(report.vulkanDevice)
            #expect(device.type == .cpu)
            #expect(report.devices.allSatisfy { !$0.usable || $0.type == .cpu }, "\(report.json)")
            #expect(!report.supportsGPU && report.supportedResources.isEmpty && report.auto == "cpu")
            #expect(report.reasonCode == .onlySoftwareDevices)
            #expect(report.json.contains(#""supportedResources":[],"auto":"cpu","reasonCode":"onlySoftwareDevices","reason":"#))
        case .gpu:
            let device = try #require(report.autoDevice)
            #expect(device.type.isHardware && device.usable)
            #expect(report.supportsGPU && report.supportedResources == ["gpu"])
            #expect(report.auto == "vulkan:\(device.index)")
            #expect(report.reasonCode == nil)
            #expect(report.json.contains(#""supportedResources":["gpu"],"auto":"vulkan:\#(device.index)","reasonCode":null"#))
        }
    }

    /// CI sets `KILN_REQUIRE_VULKAN=1`: there, a machine that lost its Vulkan
    /// device (and so skips every Vulkan test) fails here instead of passing.
    @Test("a Vulkan device is present where one is required (KILN_REQUIRE_VULKAN=1)",
          .enabled(if: ProcessInfo.processInfo.environment[VulkanAvailability.requireVariable] == "1",
                   "KILN_REQUIRE_VULKAN is not set"))
    func requiredDeviceIsPresent() {
        #expect(VulkanAvailability.current.vulkanDevice != nil,
                "KILN_REQUIRE_VULKAN=1 but \(VulkanAvailability.current.skipReason ?? "?")")
    }

    @Test("KILN_VULKAN_LIBRARY naming a missing file reads as noLoader")
    func missingLoader() throws {
        let report = DeviceDiscovery.discover(environment: ["KILN_VULKAN_LIBRARY": "/nonexistent/libvulkan.so.1"])
        #expect(report.reasonCode == .noLoader)
        #expect(report.devices.isEmpty)
        #expect(report.auto == "cpu")
        #expect(report.reason.contains("/nonexistent/libvulkan.so.1"))
        let decoded = try JSONDecoder().decode(DeviceReport.self, from: Data(report.json.utf8))
        #expect(decoded == report)
    }

    /// The loader reads its variables from the process environment when the
    /// instance is created; changing that environment inside this (parallel)
    /// test process would race with every other Vulkan test, so each variant
    /// runs discovery in a child: this test binary itself, filtered to
    /// `discoveryProbe`, which writes the report's JSON to a file.
    @Test("a loader with its driver list pointing at a missing file reads as noDriver", .requiresVulkanLoader,
          arguments: ["VK_DRIVER_FILES", "VK_ICD_FILENAMES"])
    func missingDriver(_ variable: String) throws {
        let report = try discoverInChild(environment: [variable: "/nonexistent/icd.json"])
        #expect(report.reasonCode == .noDriver, "\(report.json)")
        #expect(report.devices.isEmpty)
        #expect(report.supportedResources.isEmpty)
        #expect(report.auto == "cpu")
    }

    @Test("the report encodes to exactly SPEC §5's object")
    func jsonShape() {
        let gpu = DeviceInfo(index: 1, name: "NVIDIA H100 80GB HBM3", type: .discrete, driver: "NVIDIA",
                             apiVersion: "1.3.277", memoryBytes: 85_899_345_920, usable: true)
        let soft = DeviceInfo(index: 0, name: "llvmpipe (LLVM 15.0.6, 256 bits)", type: .cpu, driver: "llvmpipe",
                              apiVersion: "1.3.230", memoryBytes: 2_147_483_648, usable: true)
        let report = DeviceReport(devices: [soft, gpu], reasonCode: nil, reason: "usable")
        #expect(report.json == """
            {"devices":[{"index":0,"name":"llvmpipe (LLVM 15.0.6, 256 bits)","type":"cpu","driver":"llvmpipe",\
            "apiVersion":"1.3.230","memoryBytes":2147483648,"usable":true},{"index":1,"name":"NVIDIA H100 80GB HBM3",\
            "type":"discrete","driver":"NVIDIA","apiVersion":"1.3.277","memoryBytes":85899345920,"usable":true}],\
            "supportedResources":["gpu"],"auto":"vulkan:1","reasonCode":null,"reason":"usable"}
            """)
    }

    @Test("auto prefers discrete > integrated > virtual and never a software device")
    func autoRanking() {
        func device(_ index: Int, _ type: DeviceType, usable: Bool = true) -> DeviceInfo {
            DeviceInfo(index: index, name: "d\(index)", type: type, driver: "x", apiVersion: "1.3.0",
                       memoryBytes: 1, usable: usable)
        }
        let mixed = DeviceReport(devices: [device(0, .cpu), device(1, .virtual), device(2, .integrated),
                                           device(3, .discrete, usable: false)], reasonCode: nil, reason: "")
        #expect(mixed.auto == "vulkan:2")
        #expect(mixed.supportsGPU)
        let softwareOnly = DeviceReport(devices: [device(0, .cpu)], reasonCode: .onlySoftwareDevices, reason: "")
        #expect(softwareOnly.auto == "cpu")
        #expect(softwareOnly.vulkanDevice?.index == 0)
    }

    /// Child half of `missingDriver`: only enabled inside the child process.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[probeOutputVariable] != nil,
                   "runs only as the child process of the loader-variable tests"))
    func discoveryProbe() throws {
        let path = try #require(ProcessInfo.processInfo.environment[Self.probeOutputVariable])
        try DeviceDiscovery.discover().json.write(toFile: path, atomically: true, encoding: .utf8)
    }

    static let probeOutputVariable = "KILN_DISCOVERY_PROBE_OUTPUT"

    /// Runs `discoveryProbe` in a child copy of this test binary with `environment` added.
    private func discoverInChild(environment: [String: String]) throws -> DeviceReport {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("kiln-probe-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--testing-library", "swift-testing", "--filter", "discoveryProbe"]
        var childEnvironment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        childEnvironment[Self.probeOutputVariable] = output.path
        process.environment = childEnvironment
        let log = Pipe()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        let text = String(decoding: log.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "probe child failed:\n\(text)")
        let data = try #require(FileManager.default.contents(atPath: output.path), "probe wrote nothing:\n\(text)")
        return try JSONDecoder().decode(DeviceReport.self, from: data)
    }
}

@Suite("JSON text")
struct JSONTextTests {
    @Test("names with quotes, backslashes and control characters stay valid JSON")
    func escaping() throws {
        let name = "GPU \"quoted\" \\ back\u{1}slash\n/ é"
        let device = DeviceInfo(index: 0, name: name, type: .discrete, driver: "d", apiVersion: "1.0.0",
                                memoryBytes: 0, usable: true)
        let report = DeviceReport(devices: [device], reasonCode: nil, reason: "ok")
        let decoded = try JSONDecoder().decode(DeviceReport.self, from: Data(report.json.utf8))
        #expect(decoded.devices.first?.name == name)
        #expect(decoded == report)
    }
}
