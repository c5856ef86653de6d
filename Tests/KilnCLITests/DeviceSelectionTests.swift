import Foundation
import KilnTestSupport
import PNGCodec
import Testing

/// SPEC §3 device discovery and fallback through the CLI, on this machine kind
/// (Mesa lavapipe installed, no GPU). These are the GPU-availability tests CI runs.
@Suite struct DeviceSelectionTests {
    /// Environment that makes the Vulkan loader find no driver at all.
    static let noDriver = ["VK_DRIVER_FILES": "/nonexistent/icd.json", "VK_ICD_FILENAMES": "/nonexistent/icd.json"]
    /// Environment that makes kiln find no Vulkan loader.
    static let noLoader = ["KILN_VULKAN_LIBRARY": "/nonexistent/libvulkan.so.1"]

    private func devicesJSON(_ env: [String: String] = [:]) throws -> [String: Any] {
        let r = try kiln(["devices", "--json"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }

    @Test func lavapipeIsListedButIsNotAGPU() throws {
        let report = try devicesJSON()
        let devices = try #require(report["devices"] as? [[String: Any]])
        let llvmpipe = try #require(devices.first { $0[string: "name"].contains("llvmpipe") },
                                    "no llvmpipe device in \(devices)")
        #expect(llvmpipe["type"] as? String == "cpu")
        #expect(llvmpipe["usable"] as? Bool == true)
        #expect(llvmpipe["driver"] as? String != nil)
        #expect(llvmpipe[string: "apiVersion"].hasPrefix("1."))
        #expect((llvmpipe["memoryBytes"] as? Int ?? 0) > 0)
        #expect(llvmpipe["index"] is Int)
        #expect((report["supportedResources"] as? [String]) == [])
        #expect(report["auto"] as? String == "cpu")
        #expect(report["reasonCode"] as? String == "onlySoftwareDevices")
        #expect(!report[string: "reason"].isEmpty)
    }

    @Test(arguments: [("noLoader", noLoader), ("noDriver", noDriver)])
    func missingVulkanIsReportedWithItsReason(_ code: String, _ env: [String: String]) throws {
        let report = try devicesJSON(env)
        #expect(report["reasonCode"] as? String == code)
        #expect((report["devices"] as? [Any])?.isEmpty == true)
        #expect(report["auto"] as? String == "cpu")

        // auto falls back to the CPU and says why, once.
        let out = try TemporaryDirectory()
        let r = try kiln(["export", Paths.sampleData, "--output", out.path, "--progress", "json"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        let events = Events(r.stdoutLines)
        let device = events.named("start").first?["device"] as? String ?? ""
        #expect(device.hasPrefix("CPU ("), "start names the CPU and why: \(device)")
        #expect(events.files("written").count == Paths.pngs(in: Paths.sampleData).count)
    }

    @Test(arguments: [("noLoader", noLoader), ("noDriver", noDriver), ("onlySoftwareDevices", [String: String]())])
    func requiredGPUIsUnavailableExit69BeforeWriting(_ code: String, _ env: [String: String]) throws {
        let out = try TemporaryDirectory()
        let r = try kiln(["export", Paths.sampleData, "--output", out.join("o"), "--device", "gpu",
                          "--progress", "json"], environment: env)
        #expect(r.status == 69, "\(code): \(r.stderr)")
        #expect(!r.stderr.isEmpty, "the reason is named")
        #expect(!FileManager.default.fileExists(atPath: out.join("o")), "nothing written")
    }

    /// `--device vulkan` (lavapipe, under the validation layer) and `--device cpu`
    /// give byte-identical outputs on SampleData and every valid PngSuite file
    /// (with one SOURCE_DATE_EPOCH, so the tIME of the cm*.png files agrees too).
    @Test func vulkanAndCPUOutputsAreByteIdentical() throws {
        let inputs = [Paths.sampleData] + (try Fixtures.validPngSuiteFiles())
            .map { Paths.pngSuite + "/" + $0 }
        let out = try TemporaryDirectory()
        var names: [String] = []
        for device in ["vulkan", "cpu"] {
            let r = try kiln(["export"] + inputs + ["--output", out.join(device), "--device", device,
                                                    "--progress", "json"],
                             environment: ["KILN_VULKAN_VALIDATION": "1", "SOURCE_DATE_EPOCH": "1700000000"])
            #expect(r.status == 0, "\(device): \(r.stderr)")
            let start = Events(r.stdoutLines).named("start").first?["device"] as? String ?? ""
            #expect(start.lowercased().hasPrefix(device), "start event names the device: \(start)")
            #expect(Events(r.stdoutLines).named("warning").isEmpty, "\(device): \(r.stdout)")
            #expect(!r.stderr.contains("Vulkan validation"), "validation layer messages: \(r.stderr)")
            names = Paths.pngs(in: out.join(device))
        }
        #expect(names.count == 161 + Paths.pngs(in: Paths.sampleData).count)
        #expect(Paths.pngs(in: out.join("vulkan")) == names)
        for name in names {
            #expect(FileManager.default.contentsEqual(atPath: out.join("vulkan/\(name)"), andPath: out.join("cpu/\(name)")),
                    "\(name) differs between Vulkan and CPU")
        }
    }

    @Test func deviceLostMidJobFallsBackToTheCPUWithOneWarning() throws {
        let out = try TemporaryDirectory()
        let reference = try kiln(["export", Paths.sampleData, "--output", out.join("cpu"), "--device", "cpu",
                                  "--progress", "json"])
        #expect(reference.status == 0)
        let r = try kiln(["export", Paths.sampleData, "--output", out.join("lost"), "--device", "vulkan",
                          "--progress", "json", "--jobs", "2"],
                         environment: ["KILN_FAULT_DEVICE_LOST_AT": "3"])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = Events(r.stdoutLines).named("warning")
        #expect(warnings.count == 1, "\(warnings)")
        #expect((warnings.first ?? [:])[string: "message"].contains("CPU"))
        for name in Paths.pngs(in: out.join("cpu")) {
            #expect(FileManager.default.contentsEqual(atPath: out.join("cpu/\(name)"), andPath: out.join("lost/\(name)")),
                    "\(name) differs after the fallback")
        }
    }

    /// With `--device gpu` a failing GPU stops the job, resumable (exit 75), rather than
    /// silently moving to the CPU. lavapipe stands in for a GPU through a test-only hook.
    @Test func deviceLostWithRequiredGPUStopsResumable() throws {
        let out = try TemporaryDirectory()
        let r = try kiln(["export", Paths.sampleData, "--output", out.path, "--device", "gpu",
                          "--progress", "json", "--jobs", "1"],
                         environment: ["KILN_FAULT_DEVICE_LOST_AT": "3", "KILN_TEST_SOFTWARE_AS_GPU": "1"])
        #expect(r.status == 75, "\(r.stderr)")
        let events = Events(r.stdoutLines)
        #expect((events.named("warning").first ?? [:])[string: "message"].contains("required GPU failed"))
        #expect(events.all.last?["exitCode"] as? Int == 75)
        // Two images made it before the loss; each output present is complete, none half-written.
        let written = events.files("written").compactMap { $0["output"] as? String }
        #expect(written.count == 2)
        #expect(Paths.pngs(in: out.path).count == 2)
        #expect(try pngcheckFailures(written) == [])
        #expect(events.files("failed").isEmpty, "the unfinished images are left for resume, not failed")
    }
}
