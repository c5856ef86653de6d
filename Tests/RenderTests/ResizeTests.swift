import Compute
import KilnTestSupport
import ImageCore
import PNGCodec
import Render
import Testing

@Suite("resize: CPU and Vulkan agree with a float64 reference; fits, upscale, no bleed, clamping")
struct ResizeTests {
    static let filters: [(Resize.Filter, Reference.Filter)] = [(.lanczos3, .lanczos3), (.bilinear, .bilinear), (.nearest, .nearest)]

    @Test("downscale and upscale", arguments: [0, 1, 2], [false, true])
    func resample(_ filterIndex: Int, _ upscale: Bool) throws {
        let (filter, referenceFilter) = Self.filters[filterIndex]
        try withVulkanIfAvailable { vulkan in
            // Down: about 3/5 per axis; up: about 7/3 per axis (fill, so both axes change independently).
            func size(_ n: Int) -> Int { upscale ? n * 7 / 3 + 1 : max(1, n * 3 / 5) }
            try checkAgreement("resize \(filter) \(upscale ? "up" : "down")", vulkan: vulkan) { image in
                [.resize(Resize(width: size(image.width), height: size(image.height), fit: .fill, filter: filter, upscale: upscale))]
            } reference: { image, input in
                Reference.resize(input, width: size(image.width), height: size(image.height), filter: referenceFilter)
            }
        }
    }

    @Test("images larger than one storage-buffer binding are tiled", .requiresVulkan)
    func tiled() throws {
        let seed = TestSeed()
        var generator = seed.generator
        let image = TestImages.image(width: 301, height: 263, depth: .eight, alpha: true, using: &generator)
        // 4096 pixels per binding: a column of a vertical window spans a few whole rows.
        try withVulkan(maxPixelsPerDispatch: 4096) { vulkan in
            let cases: [[Render.Operation]] = [
                [.resize(Resize(width: 200, height: 150, fit: .fill))],
                [.rotate(Rotate(degrees: 90)), .blur(Blur(sigma: 2))],
                [.sharpen(Sharpen(amount: 1))],
            ]
            for operations in cases {
                let pipeline = try RenderPipeline(operations: operations)
                let cpu = try pipeline.render(image, on: CPUBackend())
                let gpu = try pipeline.render(image, on: vulkan)
                #expect(maxDifference(gpu, samples(cpu), width: cpu.width, height: cpu.height).map { $0 <= 1 } == true,
                        "\(seed): \(operations)")
            }
        }
    }

    /// A source a decoder shrank on load: 161 × 107 at 1/4 is 41 × 27 pixels, the last column and row a
    /// quarter of one. Sized as the whole picture in every EXIF orientation (the flips put the partial pixel
    /// first), and the same on both backends; on a ramp, the inner pixels land where the whole picture has them.
    @Test("a source shrunk on load", arguments: 1...8)
    func shrunkOnLoad(orientation: Int) throws {
        let shrink = ShrinkOnLoad(width: 161, height: 107, factor: 4)
        // Stored pixel x holds the ramp's mean over the picture's columns 4x…4x+3 (v = column·255/164).
        var ramp = PixelBuffer(width: 41, height: 27, depth: .sixteen)
        for y in 0..<27 {
            for x in 0..<41 {
                let value = Int((Double(4 * x) + 2) / 164 * 65535)
                for c in 0..<4 { ramp.set(x, y, c, c == 3 ? 65535 : value) }
            }
        }
        var generator = TestSeed().generator
        let noise = TestImages.image(width: 41, height: 27, depth: .eight, alpha: true, using: &generator)
        let pipeline = try RenderPipeline(operations: [.resize(Resize(width: 30, height: 30))])
            .prepending(Operation.upright(exifOrientation: orientation))
        let size = try pipeline.outputSize(width: 41, height: 27, shrunkFrom: shrink)
        // 161 × 107 into 30 × 30: 30 × 19.94, so 30 × 20. (Here the 41 × 27 stored pixels would round to the
        // same size; the ramp below tells the true extent from them.)
        #expect(size == (orientation >= 5 ? (20, 30) : (30, 20)))
        try withVulkanIfAvailable { vulkan in
            for image in [ramp, noise] {
                let cpu = try pipeline.render(image, shrunkFrom: shrink, on: CPUBackend())
                if let vulkan {
                    let gpu = try pipeline.render(image, shrunkFrom: shrink, on: vulkan)
                    #expect(maxDifference(gpu, samples(cpu), width: cpu.width, height: cpu.height).map { $0 <= 1 } == true,
                            "orientation \(orientation), \(image.depth)-bit")
                }
                guard image.depth == .sixteen, orientation <= 2 else { continue }
                // Output column j is centered on the picture's column (j + ½)·161/30; flipped (2), mirrored.
                for j in 3..<27 {
                    let column = (Double(j) + 0.5) * 161 / 30
                    let expected = (orientation == 1 ? column : 161 - column) / 164 * 65535
                    let got = Double(cpu.sample(j, 10, 0))
                    #expect(abs(got - expected) <= 40, "orientation \(orientation), column \(j): \(got) against \(expected)")
                }
            }
        }
    }

    @Test("opaque blue beside fully transparent red: no red in the result")
    func noBleed() throws {
        var image = PixelBuffer(width: 8, height: 6, depth: .eight)
        for y in 0..<6 {
            for x in 0..<8 {
                let pixel = x < 4 ? [0, 0, 255, 255] : [255, 0, 0, 0]
                for c in 0..<4 { image.set(x, y, c, pixel[c]) }
            }
        }
        try withVulkanIfAvailable { vulkan in
            for operation: Render.Operation in [.resize(Resize(width: 5, height: 3, fit: .fill)),
                                                .resize(Resize(width: 19, height: 13, fit: .fill, upscale: true)),
                                                .resize(Resize(width: 3, height: 3, fit: .fill, filter: .bilinear)),
                                                .blur(Blur(sigma: 1.5)), .sharpen(Sharpen(amount: 2))] {
                let pipeline = try RenderPipeline(operations: [operation])
                var outputs = [("CPU", try pipeline.render(image, on: CPUBackend()))]
                if let vulkan { outputs.append(("Vulkan", try pipeline.render(image, on: vulkan))) }
                for (backend, output) in outputs {
                    for y in 0..<output.height {
                        for x in 0..<output.width {
                            #expect(output.sample(x, y, 0) == 0, "\(backend) \(operation): red \(output.sample(x, y, 0)) at \(x),\(y)")
                        }
                    }
                }
            }
        }
    }

    @Test("Lanczos ringing is clamped to the valid range")
    func clamped() throws {
        // A black/white step: unclamped, Lanczos-3 rings below 0 and above 1.
        var image = PixelBuffer(width: 8, height: 1, depth: .sixteen)
        for x in 0..<8 { for c in 0..<4 { image.set(x, 0, c, c == 3 || x >= 4 ? 65535 : 0) } }
        let pipeline = try RenderPipeline(operations: [.resize(Resize(width: 29, height: 1, fit: .fill, upscale: true))])
        let output = try pipeline.render(image, on: CPUBackend())
        var unclamped = ReferenceImage(image)
        unclamped.pixels = unclamped.pixels.map(Reference.premultiply)
        let ringing = (0..<29).map { x in
            Reference.taps(x, from: 8, to: 29, filter: .lanczos3).reduce(0.0) { $0 + $1.1 * unclamped.pixels[$1.0].x }
        }
        #expect(ringing.min()! < 0 && ringing.max()! > 1, "the case rings")
        let expected = Reference.resize(ReferenceImage(image), width: 29, height: 1, filter: .lanczos3).samples(depth: .sixteen)
        #expect(maxDifference(output, expected, width: 29, height: 1)! <= 256)
        #expect(output.sample(0, 0, 0) == 0 && output.sample(28, 0, 0) == 65535)
    }

    @Test("fit inside, cover, fill; width or height alone; no upscaling unless asked",
          arguments: [
            (Resize(width: 40, height: 40, fit: .inside), 40, 20),
            (Resize(width: 40, height: 40, fit: .cover), 40, 40),
            (Resize(width: 40, height: 40, fit: .fill), 40, 40),
            (Resize(width: 30, height: nil), 30, 15),
            (Resize(width: nil, height: 10), 20, 10),
            (Resize(width: 200, height: nil), 100, 50),
            (Resize(width: 200, height: nil, upscale: true), 200, 100),
            (Resize(width: 300, height: 120, fit: .inside, upscale: true), 240, 120),
            (Resize(width: 200, height: 80, fit: .cover), 100, 50),
            (Resize(width: 200, height: 80, fit: .cover, upscale: true), 200, 80),
            (Resize(width: 200, height: 30, fit: .fill), 100, 30),
          ])
    func fits(_ resize: Resize, _ width: Int, _ height: Int) throws {
        var generator = SeededGenerator(seed: 5)
        let image = TestImages.image(width: 100, height: 50, depth: .eight, alpha: false, using: &generator)
        let output = try RenderPipeline(operations: [.resize(resize)]).render(image, on: CPUBackend())
        #expect(output.width == width && output.height == height, "\(resize): got \(output.width)×\(output.height)")
    }

    @Test("cover crops the overflow centered")
    func coverIsCentered() throws {
        var generator = SeededGenerator(seed: 9)
        let image = TestImages.image(width: 12, height: 4, depth: .eight, alpha: true, using: &generator)
        // 12×4 covering 4×4 without scaling: the middle 4 columns.
        let output = try RenderPipeline(operations: [.resize(Resize(width: 4, height: 4, fit: .cover))]).render(image, on: CPUBackend())
        let expected = Reference.remap(ReferenceImage(image), width: 4, height: 4) { ($0 + 4, $1) }.samples(depth: .eight)
        #expect(maxDifference(output, expected, width: 4, height: 4) == 0)
    }

    /// Cover's crop is made by the resample: a 4097×3 strip covered to 700×500 was resized to 682,833×500, then
    /// cropped (on Vulkan one submission a row, 5.5 GB moved). Every pass now makes at most the output's width, with
    /// or without a quarter turn before; the pixels are those of the whole resize's middle (the agreement tests).
    @Test("cover's crop is made by the resample, not cut from the whole resize", arguments: [false, true])
    func coverMakesOnlyItsCrop(turned: Bool) throws {
        let resize = Render.Operation.resize(Resize(width: 700, height: 500, fit: .cover, upscale: true))
        let operations = turned ? [.rotate(Rotate(degrees: 90)), resize] : [resize]
        let graph = try RenderPipeline(operations: operations).graph(width: turned ? 3 : 4097, height: turned ? 4097 : 3)
        #expect(graph.passes.allSatisfy { max($0.width, $0.height) <= 4097 }, "\(graph.passes.map { "\($0.kernel.name) \($0.width)×\($0.height)" })")
        #expect(graph.passes.filter { $0.kernel.name == "resample" }.count == 2)
    }
}
