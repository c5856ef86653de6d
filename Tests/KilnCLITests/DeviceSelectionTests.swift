import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// SPEC §3 device discovery and fallback through the CLI. Expectations come from
/// what discovery reports on this machine (no Vulkan, only a software device
/// such as lavapipe, or a GPU), each a definite check; tests that render on
/// Vulkan skip, saying why, where there is no Vulkan device.
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

    /// Environment that gives the loader only a driver whose hardware is not there (AMD's, on a machine with no render
    /// node at all): its enumeration fails (VK_ERROR_INITIALIZATION_FAILED), which was reported as instanceFailed.
    static let noHardware: [String: String]? = {
        let icd = "/usr/share/vulkan/icd.d/radeon_icd.x86_64.json"
        let renderNodes = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/dri")) ?? []
        guard FileManager.default.fileExists(atPath: icd), !renderNodes.contains(where: { $0.hasPrefix("renderD") }) else { return nil }
        return ["VK_DRIVER_FILES": icd, "VK_ICD_FILENAMES": icd]
    }()

    /// The variants that take Vulkan away: no loader, and (where there is a loader to
    /// point at no driver) no driver, or a driver with no hardware. Without a loader both read as noLoader.
    static let missingVulkan = [("noLoader", noLoader)] + (VulkanAvailability.current.hasLoader ? [("noDriver", noDriver)] : [])
        + (VulkanAvailability.current.hasLoader ? noHardware.map { [("noDriver", $0)] } ?? [] : [])

    @Test("kiln devices --json lists what discovery finds, and a software device is not a GPU",
          .enabled(if: VulkanAvailability.current.report != nil, "KILN_SKIP_VULKAN_TESTS=1: discovery is not run"))
    func devicesMatchDiscovery() throws {
        let expected = try #require(VulkanAvailability.current.report)
        let report = try devicesJSON()
        let devices = try #require(report["devices"] as? [[String: Any]])
        #expect(devices.map { $0[string: "name"] } == expected.devices.map(\.name))
        for device in devices where device["usable"] as? Bool == true {
            #expect(["discrete", "integrated", "virtual", "cpu"].contains(device[string: "type"]), "\(device)")
            #expect(device["driver"] as? String != nil)
            #expect(device[string: "apiVersion"].hasPrefix("1."))
            #expect((device["memoryBytes"] as? Int ?? 0) > 0)
            #expect(device["index"] is Int)
        }
        #expect(!report[string: "reason"].isEmpty)
        switch VulkanAvailability.current {
        case .skipped:
            Issue.record("discovery ran although skipped")
        case .absent(let absent):
            #expect(report["reasonCode"] as? String == absent.reasonCode?.rawValue)
            #expect((report["supportedResources"] as? [String]) == [] && report["auto"] as? String == "cpu")
        case .softwareOnly:
            #expect(devices.contains { $0[string: "type"] == "cpu" && $0["usable"] as? Bool == true })
            #expect(report["reasonCode"] as? String == "onlySoftwareDevices")
            #expect((report["supportedResources"] as? [String]) == [] && report["auto"] as? String == "cpu")
        case .gpu(let gpu):
            #expect(report["reasonCode"] is NSNull)
            #expect((report["supportedResources"] as? [String]) == ["gpu"])
            #expect(report["auto"] as? String == gpu.auto)
        }
    }

    @Test(arguments: missingVulkan)
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

    @Test(arguments: missingVulkan)
    func requiredGPUIsUnavailableExit69BeforeWriting(_ code: String, _ env: [String: String]) throws {
        let out = try TemporaryDirectory()
        let r = try kiln(["export", Paths.sampleData, "--output", out.join("o"), "--device", "gpu",
                          "--progress", "json"], environment: env)
        #expect(r.status == 69, "\(code): \(r.stderr)")
        #expect(!r.stderr.isEmpty, "the reason is named")
        // And coded, as `kiln devices --json` codes it, for a GPU availability check (it said the reason in words only).
        #expect(Events(r.stdoutLines).named("error").first?["reasonCode"] as? String == code, "\(r.stdout)")
        #expect(!FileManager.default.fileExists(atPath: out.join("o")), "nothing written")
    }

    /// `--device gpu` on this machine as it is: exports on a GPU, else exits 69
    /// naming the reason (only a software device, or no Vulkan) before writing.
    @Test(.enabled(if: VulkanAvailability.current.report != nil, "KILN_SKIP_VULKAN_TESTS=1: discovery is not run"))
    func requiredGPUFollowsDiscovery() throws {
        let report = try #require(VulkanAvailability.current.report)
        let out = try TemporaryDirectory()
        let r = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", out.join("o"), "--device", "gpu",
                          "--progress", "none"])
        if report.supportsGPU {
            #expect(r.status == 0, "\(r.stderr)")
            #expect(Paths.pngs(in: out.join("o")) == ["rgb8.png"])
        } else {
            #expect(r.status == 69, "\(report.reasonCode?.rawValue ?? "?"): \(r.stderr)")
            #expect(r.stderr.contains(report.reason.prefix(20)), "the reason is named (\(report.reason)): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.join("o")), "nothing written")
        }
    }

    /// `--device vulkan` (under the validation layer) and `--device cpu`
    /// give byte-identical outputs on SampleData and every valid PngSuite file
    /// (with one SOURCE_DATE_EPOCH, so the tIME of the cm*.png files agrees too).
    @Test(.requiresVulkan) func vulkanAndCPUOutputsAreByteIdentical() throws {
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

    @Test(.requiresVulkan) func deviceLostMidJobFallsBackToTheCPUWithOneWarning() throws {
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

    /// A photo too large to render whole on the device (96 MB of floats), so it runs in strips.
    static func stripSizedPhoto(in directory: String) throws -> String {
        var rng = SeededGenerator(seed: 20261126)
        let path = directory + "/photo.png"
        try Data(LargeImages.photo(width: 3000, height: 2000, using: &rng)).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Blur, sharpen and resize in strips on the device: only stored rows cross (the `end`
    /// event's counters), none on the CPU; a device lost in the middle of the strips moves
    /// the job to the CPU with one warning, the image redone, the output the CPU's.
    @Test(.requiresVulkan) func stripsOnTheDeviceMoveStoredRowsAndSurviveADeviceLoss() throws {
        let out = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: out.join("in"), withIntermediateDirectories: true)
        let photo = try Self.stripSizedPhoto(in: out.join("in"))
        let operations = ["--blur", "4", "--sharpen", "0.5", "--resize", "1000x"]
        func export(_ device: String, _ folder: String, _ environment: [String: String] = [:]) throws -> (ChildProcess.Outcome, [String: Any]) {
            let r = try kiln(["export", photo, "--output", out.join(folder), "--device", device, "--progress", "json"] + operations,
                             environment: environment)
            #expect(r.status == 0, "\(folder): \(r.stderr)")
            return (r, Events(r.stdoutLines).named("end").first ?? [:])
        }
        let (_, cpuEnd) = try export("cpu", "cpu")
        #expect(cpuEnd[int: "deviceBytesUp"] == 0 && cpuEnd[int: "deviceBytesDown"] == 0 && cpuEnd[int: "deviceSubmissions"] == 0,
                "\(cpuEnd)")

        let (vulkan, end) = try export("vulkan", "vulkan", ["KILN_VULKAN_VALIDATION": "1"])
        #expect(!vulkan.stderr.contains("Vulkan validation"), "validation layer messages: \(vulkan.stderr)")
        let stored = 3000 * 2000 * 4 + 1000 * 667 * 4
        let moved = end[int: "deviceBytesUp"] + end[int: "deviceBytesDown"]
        #expect(moved >= stored && Double(moved) <= 1.25 * Double(stored), "\(moved) bytes moved for \(stored) stored: \(end)")
        // At least two strips, one submission each (strips + 2 at most is checked where the strip
        // height is fixed: StripTests), so a loss at the second falls after rows reached the file.
        #expect(end[int: "deviceSubmissions"] >= 2, "\(end)")

        // Lost at the second submission of the strips: the photo is redone on the CPU.
        let (lost, _) = try export("vulkan", "lost", ["KILN_FAULT_DEVICE_LOST_AT": "2"])
        let warnings = Events(lost.stdoutLines).named("warning")
        #expect(warnings.count == 1 && (warnings.first ?? [:])[string: "message"].contains("CPU"), "\(warnings)")
        #expect(FileManager.default.contentsEqual(atPath: out.join("cpu/photo.png"), andPath: out.join("lost/photo.png")),
                "the image in flight, redone on the CPU, is the CPU's")
    }

    /// `--device cpu` never runs Vulkan discovery: no driver is loaded (lavapipe's cost 58 MB of a job's budget, and a
    /// regression of today ran discovery for every choice to name a GPU refusal's code). Seen in the process's own
    /// mappings while it holds its first image.
    @Test(.requiresVulkan) func theCPUPathLoadsNoVulkan() throws {
        let dir = try TemporaryDirectory()
        let release = dir.join("release")
        let child = try startKiln(["export", Paths.sampleData + "/rgb8.png", "--output", dir.join("o"), "--device", "cpu",
                                   "--progress", "none"], environment: ["KILN_TEST_PAUSE_DECODE": release])
        #expect(child.waitUntil { FileManager.default.fileExists(atPath: release + ".paused") })
        let maps = (try? String(contentsOfFile: "/proc/\(child.pid)/maps", encoding: .utf8)) ?? ""
        _ = FileManager.default.createFile(atPath: release, contents: Data())
        #expect(try child.wait().status == 0)
        #expect(!maps.isEmpty && !maps.contains("libvulkan") && !maps.contains("lvp") && !maps.contains("libLLVM"),
                "\(maps.split(separator: "\n").filter { $0.contains("vulkan") || $0.contains("LLVM") })")
    }

    /// With `--device gpu` a failing GPU stops the job, resumable (exit 75), rather than
    /// silently moving to the CPU. A software device stands in for a GPU through a test-only hook.
    @Test(.requiresVulkan) func deviceLostWithRequiredGPUStopsResumable() throws {
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

    /// A Vulkan loader that hangs in discovery (a driver stuck in its setup): SIGTERM to the job while its child waits
    /// there ends the job as stopped (75; or, before its handlers stand, by the signal), SIGKILL ends it at once, and
    /// either way the child with it. Before, the child stayed, an orphan hung for good.
    @Test(.enabled(if: compiler != nil, "no C compiler (clang or cc) on PATH to make the hanging loader with"))
    func aDriverHangingInDiscoveryEndsWithTheJob() throws {
        let compiler = try #require(Self.compiler)
        let dir = try TemporaryDirectory()
        try "#include <unistd.h>\nvoid *vkGetInstanceProcAddr(void *instance, const char *name) { for (;;) pause(); return 0; }\n"
            .write(toFile: dir.join("hang.c"), atomically: true, encoding: .utf8)
        let built = try ProcessRunner.run(compiler, ["-shared", "-fPIC", "-o", dir.join("libhang.so"), dir.join("hang.c")])
        try #require(built.status == 0, "\(built.stderr)")
        /// The discovery children that name this loader, by pid.
        func discovering() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).filter { pid in
                guard pid.allSatisfy(\.isNumber),
                      let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
                return environ.range(of: Data("KILN_DEVICE_PROBE=1".utf8)) != nil
                    && environ.range(of: Data(dir.join("libhang.so").utf8)) != nil
            }
        }
        // SIGTERM: the job kills the child (or, before its handlers stand, dies of it, as SIGKILL); SIGKILL: the job
        // is gone at once, and the child ends as its standard input closes.
        for signal in [SIGTERM, SIGKILL] {
            let child = try startKiln(["export", Paths.sampleData + "/rgb8.png", "--output", dir.join("o"), "--progress", "json"],
                                      environment: ["KILN_VULKAN_LIBRARY": dir.join("libhang.so")])
            let hung = child.waitUntil(timeout: .seconds(60)) { !discovering().isEmpty }
            try #require(hung, "no discovery child seen: \(child.stderrSoFar)")
            if signal == SIGTERM {
                // Said after 5 s, the job showing nothing else meanwhile.
                #expect(child.waitUntil(timeout: .seconds(60)) { child.stdoutSoFar.contains("has not answered in 5 s") },
                        "\(child.stdoutSoFar)")
            }
            kill(child.pid, signal)
            let r = try child.wait(timeout: .seconds(60))
            #expect(r.status == 75 || r.signal == signal, "\(signal): \(r.status.map(String.init) ?? "-") \(r.signal.map(String.init) ?? "-"): \(r.stderr)")
            // The child ends with the job: at once, well within 30 s.
            let deadline = ContinuousClock.now + .seconds(30)
            while !discovering().isEmpty && ContinuousClock.now < deadline { usleep(20_000) }
            let left = discovering()
            #expect(left.isEmpty, "\(signal): the discovery child outlived the job: \(left)")
            for pid in left { kill(pid_t(pid) ?? 0, SIGKILL) }
        }
    }

    /// A C compiler on PATH (the Swift toolchain's clang, else cc).
    static let compiler = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .flatMap { ["\($0)/clang", "\($0)/cc"] }.first(where: FileManager.default.isExecutableFile(atPath:))

    /// `--device auto` discovers in a child process: where it finds only a software device (lavapipe), the job never
    /// maps the driver (LLVM: about 57 MB), so a budget a CPU job fits in is not refused. Before, the job's own
    /// discovery loaded lavapipe and `--memory 40M` was refused ("less than kiln itself holds (83 MB …)").
    @Test(.enabled(if: { if case .softwareOnly = VulkanAvailability.current { true } else { false } }(),
                   "only where the one Vulkan device is a software one (lavapipe), whose loading this is about"))
    func autoOnASoftwareOnlyMachineNeverLoadsTheDriver() throws {
        let out = try TemporaryDirectory()
        let r = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", out.join("o"), "--memory", "40M",
                          "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let device = Events(r.stdoutLines).named("start").first?["device"] as? String
        #expect(device == "CPU (no GPU, only software Vulkan)", "\(r.stdout)")
        #expect(Paths.pngs(in: out.join("o")) == ["rgb8.png"])
    }

    /// A Vulkan loader that crashes while discovery runs (a broken driver) takes only the child process with it:
    /// `--device auto` renders on the CPU and says why. Before, the crash was the job's (a write through a null
    /// pointer: a `raise(SIGSEGV)` returns once Swift's backtracer has printed, and discovery went on).
    @Test(.enabled(if: compiler != nil, "no C compiler (clang or cc) on PATH to make the crashing loader with"))
    func aDriverCrashingInDiscoveryCostsOnlyTheGPU() throws {
        let compiler = try #require(Self.compiler)
        let dir = try TemporaryDirectory()
        try """
            void *vkGetInstanceProcAddr(void *instance, const char *name) { *(volatile int *)0 = 1; return 0; }
            """.write(toFile: dir.join("crash.c"), atomically: true, encoding: .utf8)
        let built = try ProcessRunner.run(compiler, ["-shared", "-fPIC", "-o", dir.join("libcrash.so"), dir.join("crash.c")])
        try #require(built.status == 0, "\(built.stderr)")
        let r = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", dir.join("o"), "--progress", "json"],
                         environment: ["KILN_VULKAN_LIBRARY": dir.join("libcrash.so")])
        #expect(r.status == 0, "signal \(r.signal.map(String.init) ?? "none"): \(r.stderr)")
        let device = Events(r.stdoutLines).named("start").first?["device"] as? String
        #expect(device == "CPU (Vulkan instance creation failed)", "\(r.stdout)")
        let warnings = Events(r.stdoutLines).named("warning").map { $0[string: "message"] }
        #expect(warnings.contains { $0.contains("was killed by signal 11") && $0.hasSuffix("rendering on the CPU") }, "\(warnings)")
        #expect(Paths.pngs(in: dir.join("o")) == ["rgb8.png"])
    }
}
