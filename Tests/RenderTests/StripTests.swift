@testable import VulkanCompute
import Foundation
import Compute
import ImageCore
import KilnTestSupport
import PNGCodec
import Render
import Testing

/// SPEC §8: images render in strips; the strip height must never show in the output.
@Suite("strip execution: outputs do not depend on the strip height")
struct StripTests {
    /// Strip heights the tests use; 1 << 20 is the whole image at once.
    static let heights = [1, 7, 64, 1 << 20]

    /// Every operation, alone and in the chains that stress the windows: a shrink then
    /// windows (sharpen's two reads of one image), a rotation or flip after float work
    /// (an intermediate held whole), a crop (rows above never computed).
    static func cases(mark: String) -> [(String, [Render.Operation])] {
        [
            ("crop", [.crop(Crop(x: 3, y: 5, width: 20, height: 40))]),
            ("rotate 90", [.rotate(Rotate(degrees: 90))]),
            ("rotate 180", [.rotate(Rotate(degrees: 180))]),
            ("rotate 270", [.rotate(Rotate(degrees: 270))]),
            ("flip h", [.flip(Flip(axis: .h))]),
            ("flip v", [.flip(Flip(axis: .v))]),
            ("resize shrink", [.resize(Resize(width: 17, height: 17))]),
            ("resize enlarge bilinear", [.resize(Resize(width: 90, height: 90, filter: .bilinear, upscale: true))]),
            ("resize cover", [.resize(Resize(width: 20, height: 30, fit: .cover))]),
            ("adjust", [.adjust(Adjust(brightness: 0.1, contrast: 1.2, saturation: 0.7, exposure: 0.3, gamma: 1.4))]),
            ("blur", [.blur(Blur(sigma: 2.5))]),
            ("sharpen", [.sharpen(Sharpen(amount: 0.8, sigma: 1.5, threshold: 0.05))]),
            ("grayscale", [.grayscale]),
            ("watermark", [.watermark(Watermark(file: mark, position: .bl, opacity: 0.8, margin: 3, scale: 0.4))]),
            ("resize, sharpen, watermark", [.resize(Resize(width: 30, height: 40)), .sharpen(Sharpen(amount: 1)),
                                            .watermark(Watermark(file: mark, position: .center, scale: 0.5))]),
            ("blur, rotate 90", [.blur(Blur(sigma: 1)), .rotate(Rotate(degrees: 90))]),
            ("crop, flip v, blur", [.crop(Crop(x: 0, y: 10, width: 30, height: 50)), .flip(Flip(axis: .v)), .blur(Blur(sigma: 3))]),
        ]
    }

    /// Random images of every format, one of them tall enough for many strips.
    static func images(seed: UInt64) -> [PixelBuffer] {
        var generator = SeededGenerator(seed: seed)
        return [PixelBuffer.Depth.eight, .sixteen].flatMap { depth in
            [true, false].map { alpha in TestImages.image(width: 41, height: 97, depth: depth, alpha: alpha, using: &generator) }
                + [opaqueAbove(TestImages.image(width: 41, height: 97, depth: depth, alpha: true, using: &generator), row: 50)]
        } + TestImages.all(seed: seed)
    }

    /// `image` with every alpha above `row` at its maximum: strips of opaque rows (read by the
    /// kernels without premultiplying), then translucent ones, where a window may hold both.
    static func opaqueAbove(_ image: PixelBuffer, row: Int) -> PixelBuffer {
        var bytes = image.bytes
        let sample = image.depth.bytesPerSample
        for pixel in 0..<(row * image.width) {
            for byte in 0..<sample { bytes[(4 * pixel + 3) * sample + byte] = 0xFF }
        }
        return PixelBuffer(width: image.width, height: image.height, depth: image.depth, bytes: bytes)
    }

    static func withMark(_ body: (String) throws -> Void) throws {
        var generator = SeededGenerator(seed: 7)
        let mark = TestImages.image(width: 9, height: 6, depth: .eight, alpha: true, using: &generator)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kiln-strip-mark-\(UUID().uuidString).png").path
        try Data(PNGEncoder.encode(mark)).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        try body(file)
    }

    @Test("CPU: strip heights 1, 7, 64 and the whole image give identical bytes, for every operation")
    func cpuStripHeights() throws {
        let seed = TestSeed()
        try Self.withMark { mark in
            for (name, operations) in Self.cases(mark: mark) {
                let pipeline = try RenderPipeline(operations: operations)
                // (A crop that misses a small image fails it on every path alike.)
                for image in Self.images(seed: seed.value) where (try? pipeline.graph(width: image.width, height: image.height)) != nil {
                    let outputs = try Self.heights.map { try pipeline.render(image, on: CPUBackend(), chunking: .rows($0)) }
                    for (height, output) in zip(Self.heights, outputs).dropLast() {
                        #expect(output == outputs.last!, "\(seed): \(name), \(TestImages.name(image)): strips of \(height) rows differ from the whole image")
                    }
                    // The default chunking (by bytes) and the whole-image entry point agree too.
                    #expect(try pipeline.render(image, on: CPUBackend()) == outputs.last!, "\(seed): \(name), \(TestImages.name(image))")
                }
            }
        }
    }

    @Test("the CPU leaves out the passes it would only copy (blur_x), never the last, and renames what reads them")
    func cpuLeavesOutForwardingPasses() throws {
        let graph = try RenderPipeline(operations: [.blur(Blur(sigma: 1)), .blur(Blur(sigma: 2))]).graph(width: 40, height: 30)
        #expect(graph.passes.map(\.kernel.name) == ["blur_x", "blur_y", "blur_x", "blur_y"])
        let cpu = CPUBackend().prepared(graph)
        #expect(cpu.passes.map(\.kernel.name) == ["blur_y", "blur_y"])
        #expect(cpu.passes.map { $0.inputs.map(\.image) } == [[.source], [.pass(0)]])
        #expect(cpu.passes.map(\.floats) == [graph.passes[1].floats, graph.passes[3].floats])
        // A forwarding pass that is the result stays: it is what gets packed.
        let last = RenderPass(kernel: KernelID("copy"), width: 40, height: 30, inputs: [.pointwise(.pass(3))],
                              forwardsOnCPU: true) { inputs, output in
            for y in output.rows { output.row(y).update(from: inputs[0].row(y), count: 40) }
        }
        let ending = PassGraph(constants: [], passes: graph.passes + [last])
        #expect(CPUBackend().prepared(ending).passes.map(\.kernel.name) == ["blur_y", "blur_y", "copy"])
        #expect(CPUBackend().prepared(ending).passes.last?.inputs.map(\.image) == [.pass(1)])
    }

    @Test("a forward-only decoder as the source gives the bytes of the decoded buffer")
    func streamingSource() throws {
        let seed = TestSeed()
        try Self.withMark { mark in
            for (name, operations) in Self.cases(mark: mark) {
                let pipeline = try RenderPipeline(operations: operations)
                for image in Self.images(seed: seed.value).prefix(4) {
                    let png = try PNGEncoder.encode(image)
                    let whole = try pipeline.render(image, on: CPUBackend())
                    for path in [PNGDecoder.Path.automatic, .libpng] {
                        let reader = try PNGRowReader(bytes: png, limits: .init(), libpngOnly: path == .libpng)
                        let graph = try pipeline.graph(width: image.width, height: image.height)
                        let source: any RowSource = StripExecutor.readsSourceBackwards(graph) ? try reader.readAll() : reader
                        let streamed = try pipeline.render(source, on: CPUBackend(), chunking: .rows(5))
                        _ = try reader.finish()
                        #expect(streamed == whole, "\(seed): \(name), \(TestImages.name(image)), \(path): streamed output differs")
                    }
                }
            }
        }
    }

    /// Where strip execution runs on Vulkan: on the device (stored rows read by the shaders from
    /// shared memory, as on lavapipe, or copied through staging, as on a discrete GPU), or a
    /// pass at a time through host memory.
    enum VulkanStrips: CaseIterable {
        case onDeviceShared, onDeviceCopied, throughHost
    }

    @Test("Vulkan: strips on the device (heights 1, 7, 64; dispatches split; memory shared or copied), and a pass at a time through host memory, equal the whole image on the device, and the CPU within SPEC §4.3",
          .requiresVulkan, arguments: VulkanStrips.allCases)
    func vulkanStrips(_ strips: VulkanStrips) throws {
        let seed = TestSeed()
        let onDevice = strips != .throughHost
        try Self.withMark { mark in
            // 4096 pixels a dispatch (a blur's window of the widest image still fits one): the
            // unpack and pack of strips of 64 rows and the passes of larger images are split.
            try withVulkan(maxPixelsPerDispatch: onDevice ? 4096 : nil, stripsOnDevice: onDevice,
                           copiesThroughStaging: strips == .onDeviceCopied) { vulkan in
                for (name, operations) in Self.cases(mark: mark) {
                    let pipeline = try RenderPipeline(operations: operations)
                    for image in Self.images(seed: seed.value).prefix(4) {
                        let whole = try pipeline.render(image, on: vulkan, mode: .whole)
                        let cpu = try pipeline.render(image, on: CPUBackend())
                        for height in onDevice ? [1, 7, 64] : [7, 64] {
                            let strips = try pipeline.render(image, on: vulkan, chunking: .rows(height), mode: .strips)
                            #expect(strips == whole, "\(seed): \(name), \(TestImages.name(image)): Vulkan strips of \(height) differ from Vulkan whole")
                            let again = try pipeline.render(image, on: vulkan, chunking: .rows(height), mode: .strips)
                            #expect(again == strips, "\(seed): \(name): Vulkan strips of \(height) differ between runs")
                        }
                        let difference = maxDifference(whole, samples(cpu), width: cpu.width, height: cpu.height)
                        #expect(difference != nil && difference! <= bound(image.depth), "\(seed): \(name): Vulkan vs CPU \(difference ?? -1)")
                    }
                }
            }
        }
    }

    @Test("Vulkan strips at the device's own height (32 MiB of floats where rows are copied): a held source read on several threads, packed rows copied out in pieces, windows' buffers kept for the next image; the same bytes every time, the CPU's within SPEC §4.3",
          .requiresVulkan)
    func deviceStripsAtTheirOwnHeight() throws {
        var generator = SeededGenerator(seed: TestSeed().value)
        // 1600 × 1400: strips of 1310 rows (2 of them), 8.4 MB of packed rows each: more than a
        // mebibyte per thread, so the copies are split; the rows read are split as well.
        let image = TestImages.image(width: 1600, height: 1400, depth: .eight, alpha: true, using: &generator)
        let pipeline = try RenderPipeline(operations: [.blur(Blur(sigma: 3)), .sharpen(Sharpen(amount: 0.5))])
        let cpu = try pipeline.render(image, on: CPUBackend())
        try withVulkan(maxPixelsPerDispatch: 1 << 18, copiesThroughStaging: true) { vulkan in
            let first = try pipeline.render(image, on: vulkan, mode: .strips)
            let allocated = vulkan.windowBuffersAllocated
            #expect(allocated > 0, "the windows had no device buffers")
            let again = try pipeline.render(image, on: vulkan, mode: .strips)
            #expect(again == first, "the second render, on kept window buffers, differs from the first")
            #expect(vulkan.windowBuffersAllocated < 2 * allocated,
                    "the second render allocated \(vulkan.windowBuffersAllocated - allocated) window buffers, the first \(allocated): none were kept")
            let difference = maxDifference(first, samples(cpu), width: cpu.width, height: cpu.height)
            #expect(difference != nil && difference! <= bound(image.depth), "Vulkan vs CPU \(difference ?? -1)")
        }
    }

    @Test("Vulkan: blur_y in runs of 32 rows (tiles up to 64 rows) and of 256 (taller ones) gives the same bytes, the CPU's within SPEC §4.3, for radii within the shared-memory apron, beyond it, and beyond the weight table",
          .requiresVulkan)
    func blurRunsOfBothLengths() throws {
        var generator = SeededGenerator(seed: TestSeed().value)
        // 300 × 600: the whole image is one dispatch, 600 rows tall (runs of 256); strips of 7
        // and 64 rows run in runs of 32, strips of 65 and 200 in runs of 256.
        let image = TestImages.image(width: 300, height: 600, depth: .eight, alpha: true, using: &generator)
        // σ 350 (radius 1050) computes each tap's weight, past the table of 1024 (`maxWeights` in
        // Shaders/blur.glsl): 2101 taps a pixel, so 8 columns of 1200 rows. Noise blurred that
        // far is its mean, whatever the weights; a step (red), a ramp (green) and alpha varying
        // across are not.
        var columns = TestImages.image(width: 8, height: 1200, depth: .eight, alpha: true, using: &generator)
        for y in 0..<1200 {
            for x in 0..<8 {
                columns.set(x, y, 0, y < 600 ? 0 : 255)
                columns.set(x, y, 1, y * 255 / 1199)
                columns.set(x, y, 3, 255 - 16 * x)
            }
        }
        try withVulkan { vulkan in
            let blurY = KernelID("blur_y")
            #expect(try vulkan.workgroup(of: blurY, width: 1920, height: 7) == (1, 32))
            #expect(try vulkan.workgroup(of: blurY, width: 300, height: 64) == (1, 32))
            #expect(try vulkan.workgroup(of: blurY, width: 300, height: 65) == (1, 256))
            #expect(try vulkan.workgroup(of: KernelID("blur_x"), width: 300, height: 7) == (256, 1))
            // σ 4: a radius of 12 (the apron in shared memory); σ 30: 90, past the apron of 64;
            // σ 350: past the weight table.
            for (sigma, image) in [(4.0, image), (30.0, image), (350.0, columns)] {
                let pipeline = try RenderPipeline(operations: [.blur(Blur(sigma: sigma))])
                let whole = try pipeline.render(image, on: vulkan, mode: .whole)
                for height in [7, 64, 65, 200] {
                    let strips = try pipeline.render(image, on: vulkan, chunking: .rows(height), mode: .strips)
                    let same = strips == whole  // compared outside #expect, which would print every byte
                    #expect(same, "σ \(sigma): strips of \(height) rows differ from the whole image")
                }
                let cpu = try pipeline.render(image, on: CPUBackend())
                let difference = maxDifference(whole, samples(cpu), width: cpu.width, height: cpu.height)
                #expect(difference != nil && difference! <= bound(image.depth), "σ \(sigma): Vulkan vs CPU \(difference ?? -1)")
                // KILN_VULKAN_RUNS=long: strips of 7 rows in runs of 256, the same bytes.
                try withVulkan(shortRuns: false) { long in
                    #expect(try long.workgroup(of: blurY, width: 1920, height: 7) == (1, 256))
                    let same = try pipeline.render(image, on: long, chunking: .rows(7), mode: .strips) == whole
                    #expect(same, "σ \(sigma): strips of 7 rows in runs of 256 differ from the whole image")
                }
            }
        }
    }

    @Test("Vulkan strips follow the source: where rows are copied, 32 MiB of floats and 16 MiB of stored rows from a held source, 8 and 4 MiB from one streamed from its decoder; where memory is shared, 8 MiB of floats from both and the same stored rows; the same bytes",
          .requiresVulkan, arguments: [true, false])
    func deviceStripsFollowTheSource(copied: Bool) throws {
        var generator = SeededGenerator(seed: TestSeed().value)
        let image = TestImages.image(width: 1600, height: 1400, depth: .eight, alpha: true, using: &generator)
        let png = try PNGEncoder.encode(image)
        // Each strip is one submission. Blur and sharpen, rows of 25,600 float bytes: 1310 rows
        // a strip from 32 MiB (2 strips), 327 from 8 MiB (5). Resized to 200 wide, each output
        // row reads 8 source rows of 6,400 stored bytes: 327 output rows a strip from 16 MiB
        // (all 175 in 1), 81 from 4 MiB (3).
        try withVulkan(copiesThroughStaging: copied) { vulkan in
            // Rows are copied where asked and on a device whose memory is not the host's (a GPU).
            let copies = copied || !vulkan.sharedMemory
            let cases: [(operations: [Render.Operation], held: Int, streamed: Int)] = [
                ([.blur(Blur(sigma: 3)), .sharpen(Sharpen(amount: 0.5))], copies ? 2 : 5, 5),
                ([.resize(Resize(width: 200, height: nil))], 1, 3),
            ]
            for (operations, heldStrips, streamedStrips) in cases {
                let pipeline = try RenderPipeline(operations: operations)
                var before = vulkan.traffic
                let held = try pipeline.render(image, on: vulkan, mode: .strips)
                let heldSubmissions = vulkan.traffic.since(before).submissions
                #expect(heldSubmissions == heldStrips, "\(operations), copied \(copied): a held source in \(heldSubmissions) strips")
                let reader = try PNGRowReader(bytes: png, limits: .init(), libpngOnly: false)
                before = vulkan.traffic
                let streamed = try pipeline.render(reader, on: vulkan, mode: .strips)
                _ = try reader.finish()
                let streamedSubmissions = vulkan.traffic.since(before).submissions
                #expect(streamedSubmissions == streamedStrips,
                        "\(operations), copied \(copied): a streamed source in \(streamedSubmissions) strips")
                #expect(streamed == held, "\(operations), copied \(copied): strips of either height gave other bytes")
            }
        }
    }

    @Test("the schedule's estimate counts a device's windows of rows only where they are host memory (shared with the device), and its staging",
          .requiresVulkan)
    func deviceStripsEstimate() throws {
        // 4000 × 3000 in strips (its float images are over 64 MiB): a blur σ 30's windows hold
        // 181 rows and more of each image, σ 1's a chunk's and a few.
        let source = RenderSchedule.Source(width: 4000, height: 3000, depth: .eight)
        let narrow = try RenderPipeline(operations: [.blur(Blur(sigma: 1))])
        let wide = try RenderPipeline(operations: [.blur(Blur(sigma: 30))])
        let cpu = try wide.schedule(for: source, on: CPUBackend()).estimatedBytes
        for copied in [true, false] {
            try withVulkan(copiesThroughStaging: copied) { vulkan in
                let small = try narrow.schedule(for: source, on: vulkan)
                let large = try wide.schedule(for: source, on: vulkan)
                #expect(small.mode == .strips && large.mode == .strips)
                let staging = vulkan.deviceStrips(depth: .eight, sourceHeld: false)?.stagingBytes ?? 0
                #expect(staging > 0, "no staging counted")
                if copied {
                    #expect(large.estimatedBytes == small.estimatedBytes,
                            "windows in device memory counted as the host's: \(large.estimatedBytes) against \(small.estimatedBytes)")
                    #expect(large.estimatedBytes < cpu, "\(large.estimatedBytes) on the device against \(cpu) on the CPU")
                } else {
                    #expect(large.estimatedBytes > small.estimatedBytes,
                            "windows in shared memory not counted: \(large.estimatedBytes) against \(small.estimatedBytes)")
                }
            }
        }
    }

    @Test("Vulkan strips on the device move only stored rows: bytes ≤ 1.25 × (source + output as stored), submissions ≤ strips + 2",
          .requiresVulkan)
    func deviceTraffic() throws {
        var generator = SeededGenerator(seed: TestSeed().value)
        let pipeline = try RenderPipeline(operations: [.blur(Blur(sigma: 4)), .sharpen(Sharpen(amount: 0.5)),
                                                       .resize(Resize(width: 150, height: nil))])
        for depth in [PixelBuffer.Depth.eight, .sixteen] {
            let image = TestImages.image(width: 320, height: 240, depth: depth, alpha: true, using: &generator)
            let rows = 16
            var moved: [Bool: DeviceTraffic] = [:]
            for onDevice in [true, false] {
                try withVulkan(stripsOnDevice: onDevice) { vulkan in
                    let before = vulkan.traffic
                    let output = try pipeline.render(image, on: vulkan, chunking: .rows(rows), mode: .strips)
                    let traffic = vulkan.traffic.since(before)
                    moved[onDevice] = traffic
                    guard onDevice else { return }
                    let stored = image.bytes.count + output.bytes.count
                    let strips = (output.height + rows - 1) / rows
                    #expect(Double(traffic.bytesUp + traffic.bytesDown) <= 1.25 * Double(stored),
                            "\(depth): \(traffic.bytesUp) up + \(traffic.bytesDown) down for \(stored) bytes stored")
                    #expect(traffic.bytesDown == output.bytes.count, "\(depth): every packed output byte comes down once")
                    #expect(traffic.submissions <= strips + 2, "\(depth): \(traffic.submissions) submissions for \(strips) strips")
                }
            }
            // A pass at a time through host memory moves float windows up and down for every pass.
            let device = moved[true]!, host = moved[false]!
            #expect(host.bytesUp + host.bytesDown > 10 * (device.bytesUp + device.bytesDown),
                    "\(depth): host strips moved \(host), device strips \(device)")
        }
    }

    @Test("a last pass that copies the image before it backwards (a turn or flip v after a resize or a blur, or of the source alone) runs on that image's packed rows: the bytes of the image held whole as floats (or of the source read by rectangles), at 8 and 16 bits, alpha or not, strips of several heights; the estimate holds packed rows, not floats")
    func packedLastCopy() throws {
        let seed = TestSeed()
        let cases: [(String, [Render.Operation])] = [
            ("orientation 6, fit", [.rotate(Rotate(degrees: 90)), .resize(Resize(width: 30, height: 30))]),
            ("orientation 5, fit", [.rotate(Rotate(degrees: 270)), .flip(Flip(axis: .h)), .resize(Resize(width: 25, height: 25))]),
            ("rotate 90, cover", [.rotate(Rotate(degrees: 90)), .resize(Resize(width: 12, height: 20, fit: .cover))]),
            ("blur, rotate 270", [.blur(Blur(sigma: 1.5)), .rotate(Rotate(degrees: 270))]),
            ("sharpen, flip v", [.sharpen(Sharpen(amount: 1)), .flip(Flip(axis: .v))]),
            ("adjust, rotate 180", [.adjust(Adjust(brightness: 0.1, contrast: 1.3)), .rotate(Rotate(degrees: 180))]),
            // A copy of the source alone: its stored rows copied.
            ("rotate 90", [.rotate(Rotate(degrees: 90))]),
            ("flip v", [.flip(Flip(axis: .v))]),
            ("crop, rotate 270", [.crop(Crop(x: 3, y: 5, width: 30, height: 40)), .rotate(Rotate(degrees: 270))]),
        ]
        for (name, operations) in cases {
            let pipeline = try RenderPipeline(operations: operations)
            var checked = 0
            for image in Self.images(seed: seed.value) {
                guard let built = try? pipeline.graph(width: image.width, height: image.height) else { continue }
                let graph = CPUBackend().prepared(built)
                // (A crop that misses the image fails it on every path alike.)
                guard graph.passes.last?.isCopy == true, graph.passes.last?.inputs.first?.isForward == false else { continue }
                checked += 1
                let size = graph.size(of: graph.result, source: (image.width, image.height))
                for height in Self.heights {
                    // The graph held whole as floats for its last pass, as strip execution alone runs it.
                    let floats = PixelBufferSink(width: size.width, height: size.height, depth: image.depth)
                    try StripExecutor(graph: graph, source: image, backend: CPUBackend(), chunking: .rows(height))
                        .render(into: floats)
                    let packed = try pipeline.render(image, on: CPUBackend(), chunking: .rows(height))
                    #expect(packed == floats.takeImage(), "\(seed): \(name), \(TestImages.name(image)), strips of \(height)")
                }
            }
            #expect(checked >= 6, "\(name): \(checked) images ended in a copy")
        }
        // A phone portrait to a thumbnail, a blur turned: the schedule holds the turned image's packed rows, not its floats
        // (read ahead beside them, which the strips' own estimate leaves out).
        for operations: [Render.Operation] in [[.rotate(Rotate(degrees: 90)), .resize(Resize(width: 1600, height: 1600))],
                                                [.blur(Blur(sigma: 1.5)), .rotate(Rotate(degrees: 270))],
                                                [.sharpen(Sharpen(amount: 1)), .flip(Flip(axis: .v))]] {
            let pipeline = try RenderPipeline(operations: operations)
            let graph = CPUBackend().prepared(try pipeline.graph(width: 4000, height: 3000))
            let shape = RenderSchedule.Source(width: 4000, height: 3000, depth: .eight)
            let scheduled = try pipeline.schedule(for: shape, on: CPUBackend()).estimatedBytes
            let floats = StripExecutor.estimatedBytes(graph: graph, width: 4000, height: 3000, depth: .eight)
            #expect(Double(scheduled) < 0.7 * Double(floats), "\(operations): \(scheduled) bytes, the strips holding floats \(floats)")
        }
    }

    @Test("a strong shrink holds a window, not the image: the estimate follows the width")
    func memoryFollowsWidth() throws {
        let pipeline = try RenderPipeline(operations: [.resize(Resize(width: 1920, height: 1920))])
        func estimate(_ width: Int, _ height: Int) throws -> Int {
            StripExecutor.estimatedBytes(graph: try pipeline.graph(width: width, height: height), width: width, height: height,
                                         depth: .eight)
        }
        let tall = try estimate(20000, 20000), taller = try estimate(20000, 80000)
        // Four times the rows, about the same working set: memory follows width, not area.
        #expect(Double(taller) < 1.5 * Double(tall), "20000×20000: \(tall) bytes, 20000×80000: \(taller) bytes")
        #expect(tall < 128 << 20, "a 400 MPix shrink should stream in well under 128 MiB of floats, not \(tall) bytes")
    }

    @Test("Vulkan: a strip whose passes carry more work than one submission should is submitted in parts, each waited for, the progress moving between them: the same bytes as in one part, the stored rows counted once; a graph past the bound never runs whole",
          .requiresVulkan)
    func costlyStripsAreSubmittedInParts() throws {
        var generator = SeededGenerator(seed: TestSeed().value)
        let image = TestImages.image(width: 300, height: 200, depth: .eight, alpha: true, using: &generator)
        // Radius 90 (past the shaders' shared-memory apron): 181 taps a pixel each way, 2.2 × 10⁷ taps in all.
        let pipeline = try RenderPipeline(operations: [.blur(Blur(sigma: 30))])
        var outputs: [PixelBuffer] = [], traffic: [DeviceTraffic] = []
        for bound in [nil, 1 << 20] {  // nil: the default, 2^28
            try withVulkan(copiesThroughStaging: true, submissionTaps: bound) { vulkan in
                let source = RenderSchedule.Source(width: image.width, height: image.height, depth: image.depth)
                #expect(try pipeline.schedule(for: source, on: vulkan).mode == (bound == nil ? .whole : .strips),
                        "whole is one submission: only within the bound")
                let before = vulkan.traffic
                let sink = PixelBufferSink(width: image.width, height: image.height, depth: image.depth)
                var heard: [Double] = []
                try pipeline.render(image, on: vulkan, mode: .strips, into: sink) { heard.append($0) }
                traffic.append(vulkan.traffic.since(before))
                outputs.append(sink.takeImage())
                #expect(zip(heard, heard.dropFirst()).allSatisfy { $0 <= $1 } && heard.last == 1, "\(heard)")
                #expect(heard.count >= traffic.last!.submissions, "the progress moves between the parts: \(heard)")
            }
        }
        #expect(traffic[0].submissions == 1, "one strip, one submission: \(traffic[0])")
        #expect(traffic[1].submissions >= 10, "parts of at most 2^20 taps: \(traffic[1])")
        #expect(traffic[1].bytesUp == traffic[0].bytesUp && traffic[0].bytesUp == image.bytes.count, "stored rows counted once: \(traffic)")
        #expect(outputs[1] == outputs[0], "the parts gave other bytes")
    }

    /// A strip that stages nothing (every source row it reads was staged by the strip before: a 3-row image upscaled
    /// 60 times) and must be submitted in parts, on a slot that had staged nothing yet: its first part failed,
    /// "staging buffer missing" (the CLI's CPU took over; `--device gpu` stopped the job, exit 75, for good).
    @Test("Vulkan: a strip with nothing to stage, submitted in parts, runs on a fresh slot", .requiresVulkan)
    func aStripWithNothingToStageRunsInParts() throws {
        var generator = SeededGenerator(seed: TestSeed().value)
        let image = TestImages.image(width: 300, height: 3, depth: .eight, alpha: false, using: &generator)
        let pipeline = try RenderPipeline(operations: [.resize(Resize(width: 300, height: 180, fit: .fill, upscale: true)),
                                                        .adjust(Adjust(brightness: 0.1))])
        let cpu = try pipeline.render(image, on: CPUBackend())
        try withVulkan(submissionTaps: 1 << 14) { vulkan in
            let strips = try pipeline.render(image, on: vulkan, chunking: .rows(64), mode: .strips)
            let difference = maxDifference(strips, samples(cpu), width: cpu.width, height: cpu.height)
            #expect(difference != nil && difference! <= bound(image.depth), "Vulkan vs CPU \(difference ?? -1)")
        }
    }
}
