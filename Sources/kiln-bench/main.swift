// kiln-bench — times the render stage alone (decoded pixels in, pixels out),
// for Scripts/bench and Scripts/gpu-check. Decoding happens before the clock starts.
//
//   kiln-bench synthesize WIDTH HEIGHT OUT.png     deterministic RGBA test image
//   kiln-bench gradient WIDTH HEIGHT OUT.png
//       the gradient of Scripts/make-giants (vips): R follows x, G follows y,
//       B their mean, 8-bit RGB; the same pixels as vips makes, without vips
//   kiln-bench time IN.png OPERATIONS cpu|gpu|vulkan|auto RUNS
//       OPERATIONS: comma-separated, applied in the order given, each NAME or
//       NAME:VALUE[:VALUE…]: resize:W[:H] (Lanczos-3, fit inside), blur:SIGMA,
//       sharpen:AMOUNT[:SIGMA[:THRESHOLD]], brightness:B, contrast:C,
//       saturation:S, exposure:E, gamma:G (adjacent ones make one adjust, as
//       the flags do), grayscale; e.g. blur:2,sharpen:0.5,brightness:0.1,resize:1920.
//       The device is chosen as `kiln export --device` chooses it. Prints, after
//       one warm-up render that is not timed:
//         seconds: t1 t2 …
//         traffic: up BYTES down BYTES submissions N    (over the first timed render; 0 on the CPU)
//         stored: source BYTES output BYTES              (the pixel buffers: width × height × 4 × bytes per sample)
//   kiln-bench codec DIR RUNS
//       decode-only and encode-only throughput on DIR's PNGs, fast path vs
//       libpng+zlib (level 6), median of RUNS: prints MPix/s per core and bytes
//   kiln-bench compare DIR_A DIR_B
//       decodes every PNG of DIR_A and its namesake in DIR_B (recursively) and
//       prints "files: N  max8: D  max16: D  failures: F"; exits 1 when a pair
//       differs in size or by more than SPEC §4.3 allows (1 per 8-bit channel,
//       256 per 16-bit channel), or when a file is missing from DIR_B
import Compute
import Foundation
import ImageCore
import PNGCodec
import Render
import VulkanCompute

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("kiln-bench: \(message)\n".utf8))
    exit(64)
}

/// Smooth gradients, texture and a soft alpha ramp: resampling and blurring see real work, not flat color.
func synthesize(width: Int, height: Int) -> PixelBuffer {
    var bytes = [UInt8](repeating: 0, count: width * height * 4)
    var state: UInt32 = 12345
    for y in 0..<height {
        for x in 0..<width {
            state = state &* 1_664_525 &+ 1_013_904_223
            let noise = Int(state >> 28)
            let i = (y * width + x) * 4
            bytes[i] = UInt8((x * 255 / max(1, width - 1) + noise) & 255)
            bytes[i + 1] = UInt8((y * 255 / max(1, height - 1)) ^ (x & 31))
            bytes[i + 2] = UInt8(((x / 64 + y / 64) % 2) * 200 + noise)
            bytes[i + 3] = UInt8(min(255, 128 + (x + y) * 255 / max(1, width + height)))
        }
    }
    return PixelBuffer(width: width, height: height, depth: .eight, bytes: bytes)
}

/// The largest difference between two decoded images' samples, or nil when their sizes or depths differ.
func maxDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int? {
    guard a.width == b.width, a.height == b.height, a.depth == b.depth else { return nil }
    var worst = 0
    if a.depth == .eight {
        for i in a.bytes.indices { worst = max(worst, abs(Int(a.bytes[i]) - Int(b.bytes[i]))) }
    } else {
        a.bytes.withUnsafeBytes { ra in
            b.bytes.withUnsafeBytes { rb in
                for offset in stride(from: 0, to: ra.count, by: 2) {
                    let x = Int(ra.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
                    let y = Int(rb.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
                    worst = max(worst, abs(x - y))
                }
            }
        }
    }
    return worst
}

/// Compares two output folders as SPEC §4.3 requires (see the header).
func compare(_ left: String, _ right: String) -> Int32 {
    let names = (FileManager.default.enumerator(atPath: left)?.allObjects as? [String] ?? [])
        .filter { $0.lowercased().hasSuffix(".png") && !$0.hasPrefix(".kiln") }.sorted()
    var worst8 = 0, worst16 = 0
    var failures: [String] = []
    for name in names {
        do {
            let a = try PNGDecoder.decode(contentsOf: left + "/" + name, limits: .init())
            let b = try PNGDecoder.decode(contentsOf: right + "/" + name, limits: .init())
            guard let difference = maxDifference(a, b) else {
                failures.append("\(name): \(a.width)×\(a.height)/\(a.depth) vs \(b.width)×\(b.height)/\(b.depth)")
                continue
            }
            if a.depth == .eight { worst8 = max(worst8, difference) } else { worst16 = max(worst16, difference) }
            if difference > (a.depth == .eight ? 1 : 256) { failures.append("\(name): differs by \(difference)") }
        } catch {
            failures.append("\(name): \(error)")
        }
    }
    if names.isEmpty { failures.append("no PNG files in \(left)") }
    print("files: \(names.count)  max8: \(worst8)  max16: \(worst16)  failures: \(failures.count)")
    failures.prefix(20).forEach { print("  \($0)") }
    return failures.isEmpty ? 0 : 1
}

/// Seconds of `body`, median of `runs`.
func median(_ runs: Int, _ body: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<max(1, runs) {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    }
    return times.sorted()[times.count / 2]
}

/// Decode and encode throughput, one core, fast path vs libpng and zlib.
func codec(_ directory: String, runs: Int) throws {
    let names = (try FileManager.default.contentsOfDirectory(atPath: directory)).filter { $0.hasSuffix(".png") }.sorted()
    let files = try names.map { [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/" + $0))) }
    let images = try files.map { try PNGDecoder.decode($0, path: .libpng).0 }
    let megapixels = Double(images.reduce(0) { $0 + $1.pixelCount }) / 1e6
    var fastFiles = 0
    let decodeFast = try median(runs) { fastFiles = try files.filter { try PNGDecoder.decode($0, path: .automatic).fastPath }.count }
    let decodeLibpng = try median(runs) { for file in files { _ = try PNGDecoder.decode(file, path: .libpng) } }
    var fastBytes = 0, zlibBytes = 0
    // One segment at a time here (segments run on every core in real use): per-core figures.
    let encodeFast = try median(runs) {
        fastBytes = try images.reduce(0) { $0 + (try PNGEncoder.encode($1, options: .init(level: 6))).count }
    }
    let encodeZlib = try median(runs) {
        zlibBytes = try images.reduce(0) { $0 + (try PNGEncoder.encode($1, options: .init(level: 6, deflater: .zlib))).count }
    }
    print(String(format: "images: %d, %.1f MPix; fast path decoded %d", images.count, megapixels, fastFiles))
    print(String(format: "decode: fast %.1f MPix/s, libpng+zlib %.1f MPix/s (%.2fx)", megapixels / decodeFast,
                 megapixels / decodeLibpng, decodeLibpng / decodeFast))
    print(String(format: "encode level 6: fast path (libdeflate 3 whole up to 64 MiB of rows, else zlib in segments) %.1f MPix/s (%d bytes), libpng+zlib %.1f MPix/s (%d bytes) (%.2fx)",
                 megapixels / encodeFast, fastBytes, megapixels / encodeZlib, zlibBytes, encodeZlib / encodeFast))
}

/// The operations of `kiln-bench time` (see the header), in the order given.
func operations(_ text: String) -> [Render.Operation] {
    var operations: [Render.Operation] = []
    var adjustKeys: Set<String> = []  // the keys of the adjust being built (the last operation), if any
    for item in text.split(separator: ",").map(String.init) {
        let parts = item.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let name = parts[0]
        let values = parts.dropFirst().map { text -> Double in
            guard let value = Double(text) else { fail("\(item): '\(text)' is not a number") }
            return value
        }
        func expect(_ count: ClosedRange<Int>) {
            guard count.contains(values.count) else { fail("\(item): \(name) takes \(count.lowerBound)…\(count.upperBound) values") }
        }
        if ["brightness", "contrast", "saturation", "exposure", "gamma"].contains(name) {
            expect(1...1)
            var adjust = Adjust()
            if case .adjust(let last)? = operations.last, !adjustKeys.contains(name) {
                adjust = last
                operations.removeLast()
            } else {
                adjustKeys = []
            }
            switch name {
            case "brightness": adjust.brightness = values[0]
            case "contrast": adjust.contrast = values[0]
            case "saturation": adjust.saturation = values[0]
            case "exposure": adjust.exposure = values[0]
            default: adjust.gamma = values[0]
            }
            adjustKeys.insert(name)
            operations.append(.adjust(adjust))
            continue
        }
        switch name {
        case "resize":
            expect(1...2)
            operations.append(.resize(Resize(width: Int(values[0]), height: values.count > 1 ? Int(values[1]) : nil)))
        case "blur":
            expect(1...1)
            operations.append(.blur(Blur(sigma: values[0])))
        case "sharpen":
            expect(1...3)
            operations.append(.sharpen(Sharpen(amount: values[0], sigma: values.count > 1 ? values[1] : 1,
                                               threshold: values.count > 2 ? values[2] : 0)))
        case "grayscale":
            expect(0...0)
            operations.append(.grayscale)
        default:
            fail("unknown operation '\(name)' (resize, blur, sharpen, brightness, contrast, saturation, exposure, gamma, grayscale)")
        }
    }
    if operations.isEmpty { fail("no operations in '\(text)'") }
    return operations
}

/// Scripts/make-giants' gradient, the same pixels as its vips commands give:
/// `linear 0.01275 --uchar` truncates x·0.01275 (R) and y·0.01275 (G), and
/// `bandmean` rounds their mean half up (B); opaque, so it is stored as RGB.
func gradient(width: Int, height: Int) -> PixelBuffer {
    func ramp(_ i: Int) -> UInt8 { UInt8(min(255, Double(i) * 0.01275)) }
    let red = (0..<width).map(ramp)
    var bytes = [UInt8](repeating: 255, count: width * height * 4)
    bytes.withUnsafeMutableBufferPointer { pixels in
        for y in 0..<height {
            let green = ramp(y)
            var i = y * width * 4
            for x in 0..<width {
                pixels[i] = red[x]
                pixels[i + 1] = green
                pixels[i + 2] = UInt8((Int(red[x]) + Int(green) + 1) / 2)
                i += 4
            }
        }
    }
    return PixelBuffer(width: width, height: height, depth: .eight, bytes: bytes)
}

/// Bytes of a decoded image as held: 4 samples a pixel.
func storedBytes(_ image: PixelBuffer) -> Int { image.width * image.height * 4 * image.depth.bytesPerSample }

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "synthesize":
    guard arguments.count == 4, let width = Int(arguments[2]), let height = Int(arguments[3]) else {
        fail("usage: kiln-bench synthesize WIDTH HEIGHT OUT.png")
    }
    let image = synthesize(width: width, height: height)
    let png = try PNGEncoder.encode(image, options: .init(level: 1))
    try Data(png).write(to: URL(fileURLWithPath: arguments[4]))
case "gradient":
    guard arguments.count == 4, let width = Int(arguments[2]), let height = Int(arguments[3]), width > 0, height > 0 else {
        fail("usage: kiln-bench gradient WIDTH HEIGHT OUT.png")
    }
    let png = try PNGEncoder.encode(gradient(width: width, height: height), options: .init(level: 6))
    try Data(png).write(to: URL(fileURLWithPath: arguments[4]))
case "time":
    guard arguments.count == 5, let runs = Int(arguments[5]), runs >= 1 else {
        fail("usage: kiln-bench time IN.png OPERATIONS cpu|gpu|vulkan|auto RUNS (e.g. blur:2,sharpen:0.5,brightness:0.1,resize:1920)")
    }
    let image = try PNGDecoder.decode(contentsOf: arguments[2], limits: .init())
    guard let preference = DevicePreference(rawValue: arguments[4]) else { fail("unknown device \(arguments[4])") }
    let backend = try BackendSelector.choose(preference).passBackend
    let pipeline = try RenderPipeline(operations: operations(arguments[3])) { path, limits in
        try PNGDecoder.decode(contentsOf: path, limits: limits)
    }
    let output = try pipeline.render(image, on: backend)
    var seconds: [Double] = []
    var traffic = DeviceTraffic()
    for run in 0..<runs {
        let before = backend.traffic
        let start = ContinuousClock.now
        _ = try pipeline.render(image, on: backend)
        let elapsed = ContinuousClock.now - start
        if run == 0 { traffic = backend.traffic.since(before) }
        seconds.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    }
    print("seconds: " + seconds.map { String(format: "%.4f", $0) }.joined(separator: " "))
    print("traffic: up \(traffic.bytesUp) down \(traffic.bytesDown) submissions \(traffic.submissions)")
    print("stored: source \(storedBytes(image)) output \(storedBytes(output))")
case "codec":
    guard arguments.count == 3, let runs = Int(arguments[3]) else { fail("usage: kiln-bench codec DIR RUNS") }
    try codec(arguments[2], runs: runs)
case "compare":
    guard arguments.count == 3 else { fail("usage: kiln-bench compare DIR_A DIR_B") }
    exit(compare(arguments[2], arguments[3]))
default:
    fail("usage: kiln-bench synthesize WIDTH HEIGHT OUT.png | gradient WIDTH HEIGHT OUT.png | time IN.png OPERATIONS cpu|gpu|vulkan|auto RUNS | codec DIR RUNS | compare DIR_A DIR_B")
}
