import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import PropertyBased
import Render
import Testing

/// Random operation lists with ordinary and hostile parameters (`OperationGen`)
/// through `kiln export`, as a recipe or as flags, on a random tiny PNG: the
/// process always exits 0, 1 or 64 (never a signal), writes nothing when it
/// exits 64, stays within a memory bound, and gives the same outcome on the CPU
/// and on Vulkan (where there is a device), samples within SPEC §4.3's bound.
/// Fewer cases than the library's property test: each spawns processes.
@Suite struct CLIPropertyTests {
    /// `--max-pixels` for these runs, and the peak memory allowed (KB, as GNU time reports it).
    static let maxPixels = 1_000_000
    static let maxResidentKB = 1_000_000

    @Test func randomOperationListsThroughKiln() throws {
        let seed = TestSeed()
        let count = max(1, PropertyCases.count(ciDefault: 80) / 10)
        var operationsRandom = Xoshiro(seed: (seed.value, 0x2545_F491_4F6C_DD1D, 0x9E37_79B9_7F4A_7C15, 2))
        var random = seed.generator
        let work = try TemporaryDirectory()
        let mark = Paths.sampleData + "/watermark.png"
        let lists = OperationGen.operations(maxCount: 3, mark: mark)
        let devices = VulkanAvailability.current.vulkanDevice == nil ? ["cpu"] : ["cpu", "vulkan"]
        var statuses: [Int32: Int] = [:]
        for index in 0..<count {
            let operations = lists.run(using: &operationsRandom)
            let width = Int.random(in: 1...16, using: &random), height = Int.random(in: 1...16, using: &random)
            let depth: PixelBuffer.Depth = Bool.random(using: &random) ? .eight : .sixteen
            let bytes = (0..<(width * height * 4 * depth.bytesPerSample)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let input = work.join("in\(index).png")
            try Data(PNGEncoder.encode(PixelBuffer(width: width, height: height, depth: depth, bytes: bytes)))
                .write(to: URL(fileURLWithPath: input))
            let asRecipe = index % 2 == 0
            let arguments = asRecipe ? ["--recipe", try Self.recipe(operations, in: work, index: index)] : Self.flags(operations)
            let label = "\(seed), case \(index) of \(count) (\(asRecipe ? "recipe" : "flags")): \(operations) on \(width)×\(height) \(depth.rawValue)-bit"
            var outcomes: [(device: String, status: Int32, output: PixelBuffer?)] = []
            for device in devices {
                let out = work.join("out\(index)-\(device)")
                let r = try ProcessRunner.run("/usr/bin/time", ["-f", "maxrss=%M", Paths.kiln, "export", input, "--output", out,
                                                               "--device", device, "--progress", "none",
                                                               "--max-pixels", "\(Self.maxPixels)"] + arguments,
                                             environment: ["KILN_RUNTIME_DIR": work.join("slots")])
                let status = r.status ?? -1
                #expect(r.signal == nil && [0, 1, 64].contains(status), "\(label), \(device): status \(status): \(r.stderr)")
                let rss = r.stderr.split(separator: "\n").last { $0.hasPrefix("maxrss=") }.flatMap { Int($0.dropFirst(7)) }
                #expect(rss.map { $0 < Self.maxResidentKB } == true, "\(label), \(device): peak memory \(rss ?? -1) KB")
                if status != 0 { #expect(r.stderr.split(separator: "\n").count > 1, "\(label), \(device): no reason given") }
                if status == 64 { #expect(!FileManager.default.fileExists(atPath: out), "\(label), \(device): 64 but wrote \(out)") }
                let written = out + "/in\(index).png"
                outcomes.append((device, status, status == 0 ? try PNGDecoder.decode(contentsOf: written) : nil))
                statuses[status, default: 0] += 1
            }
            guard outcomes.count == 2 else { continue }
            #expect(outcomes[0].status == outcomes[1].status, "\(label): CPU exits \(outcomes[0].status), Vulkan \(outcomes[1].status)")
            if let cpu = outcomes[0].output, let vulkan = outcomes[1].output {
                #expect(cpu.width == vulkan.width && cpu.height == vulkan.height && cpu.depth == vulkan.depth,
                        "\(label): CPU \(cpu.width)×\(cpu.height), Vulkan \(vulkan.width)×\(vulkan.height)")
                let limit = cpu.depth == .eight ? 1 : 256
                let most = zip(Self.samples(cpu), Self.samples(vulkan)).map { abs($0 - $1) }.max() ?? 0
                #expect(most <= limit, "\(label): Vulkan vs CPU max difference \(most)")
            }
        }
        print("CLI properties: \(count) cases (\(PropertyCases.variable)/10) on \(devices.joined(separator: ", ")), \(seed): "
              + "exit codes \(statuses.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " "))")
    }

    /// A recipe file of `operations`; NaN and ±∞, which JSON cannot hold, become strings (a type error, exit 64).
    static func recipe(_ operations: [Render.Operation], in work: TemporaryDirectory, index: Int) throws -> String {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let path = work.join("recipe\(index).json")
        let text = String(decoding: try encoder.encode(operations), as: UTF8.self)
        try #"{"operations":\#(text)}"#.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The flags of `operations`: the first of each kind, as the flags apply them (SPEC §4.2's order).
    static func flags(_ operations: [Render.Operation]) -> [String] {
        var flags: [String] = []
        for name in Render.Operation.names {
            guard let operation = operations.first(where: { $0.name == name }) else { continue }
            switch operation {
            case .crop(let c): flags += ["--crop", "\(c.x),\(c.y),\(c.width),\(c.height)"]
            case .rotate(let r): flags += ["--rotate", "\(r.degrees)"]
            case .flip(let f): flags += ["--flip", f.axis.rawValue]
            case .resize(let r):
                flags += ["--resize", "\(r.width.map(String.init) ?? "")x\(r.height.map(String.init) ?? "")",
                          "--fit", r.fit.rawValue, "--filter", r.filter.rawValue] + (r.upscale ? ["--upscale"] : [])
            case .adjust(let a):
                flags += ["--brightness", "\(a.brightness)", "--contrast", "\(a.contrast)", "--saturation", "\(a.saturation)",
                          "--exposure", "\(a.exposure)", "--gamma", "\(a.gamma)"]
            case .blur(let b): flags += ["--blur", "\(b.sigma)"]
            case .sharpen(let s): flags += ["--sharpen", "\(s.amount),\(s.sigma),\(s.threshold)"]
            case .grayscale: flags += ["--grayscale"]
            case .watermark(let w):
                flags += ["--watermark", w.file, "--watermark-position", w.position.rawValue, "--watermark-opacity", "\(w.opacity)",
                          "--watermark-margin", "\(w.margin)", "--watermark-scale", "\(w.scale)"]
            }
        }
        return flags
    }

    /// Every sample of `image`, in order.
    static func samples(_ image: PixelBuffer) -> [Int] {
        image.bytes.withUnsafeBytes { raw in
            image.depth == .eight ? raw.map { Int($0) }
                : (0..<raw.count / 2).map { Int(raw.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self)) }
        }
    }
}
