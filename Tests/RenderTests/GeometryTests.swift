import Compute
import KilnTestSupport
import ImageCore
import Render
import Testing

@Suite("crop, rotate, flip: CPU and Vulkan agree with the reference")
struct GeometryTests {
    static let rotations = [90, 180, 270]

    @Test("crop")
    func crop() throws {
        try withVulkanIfAvailable { vulkan in
            try checkAgreement("crop", vulkan: vulkan) { image in
                [.crop(Crop(x: image.width / 3, y: image.height / 4, width: max(1, image.width / 2), height: image.height))]
            } reference: { image, input in
                let x = image.width / 3, y = image.height / 4
                return Reference.remap(input, width: max(1, image.width / 2), height: image.height - y) { ($0 + x, $1 + y) }
            }
        }
    }

    @Test("a crop outside the image fails the image, not the device")
    func cropOutside() throws {
        var generator = SeededGenerator(seed: 1)
        let image = TestImages.image(width: 4, height: 4, depth: .eight, alpha: true, using: &generator)
        let pipeline = try RenderPipeline(operations: [.crop(Crop(x: 10, y: 0, width: 2, height: 2))])
        #expect(throws: RenderError.cropOutsideImage(crop: "10,0,2,2", width: 4, height: 4)) {
            try pipeline.render(image, on: CPUBackend())
        }
    }

    @Test("rotate", arguments: rotations)
    func rotate(_ degrees: Int) throws {
        try withVulkanIfAvailable { vulkan in
            try checkAgreement("rotate \(degrees)", vulkan: vulkan) { _ in
                [.rotate(Rotate(degrees: degrees))]
            } reference: { image, input in
                let w = image.width, h = image.height
                return switch degrees {
                case 90: Reference.remap(input, width: h, height: w) { x, y in (y, h - 1 - x) }
                case 180: Reference.remap(input, width: w, height: h) { x, y in (w - 1 - x, h - 1 - y) }
                default: Reference.remap(input, width: h, height: w) { x, y in (w - 1 - y, x) }
                }
            }
        }
    }

    /// Every ordered pair of these, and crop–rotate–flip triples (the flags' order, and an EXIF orientation's).
    static let steps: [(String, @Sendable (PixelBuffer) -> Operation)] = [
        ("crop", { .crop(Crop(x: $0.width / 5, y: $0.height / 3, width: max(1, $0.width * 2 / 3), height: max(1, $0.height / 2))) }),
        ("rotate 90", { _ in .rotate(Rotate(degrees: 90)) }), ("rotate 180", { _ in .rotate(Rotate(degrees: 180)) }),
        ("rotate 270", { _ in .rotate(Rotate(degrees: 270)) }),
        ("flip h", { _ in .flip(Flip(axis: .h)) }), ("flip v", { _ in .flip(Flip(axis: .v)) }),
    ]

    /// A crop, rotation or flip after another is composed into one remap pass (`PassBuilder.remap`):
    /// the same pixels as the operations one at a time, on both backends, and one pass only, so
    /// the flags' `--crop … --rotate 90` reads the stored source instead of holding a float image whole.
    @Test("a run of crops, rotations and flips is one pass, pixel for pixel the operations one at a time")
    func composedRemaps() throws {
        let pairs = Self.steps.flatMap { first in Self.steps.map { [first, $0] } }
        let triples = [0, 1, 3].flatMap { crop in (1...3).flatMap { turn in (4...5).map { [Self.steps[crop], Self.steps[turn], Self.steps[$0]] } } }
        let seed = TestSeed()
        let images = RandomImages.all(seed: seed.value).filter { $0.width > 1 && $0.height > 1 }
        try withVulkanIfAvailable { vulkan in
            let backends: [any PassBackend] = [CPUBackend()] + (vulkan.map { [$0] } ?? [])
            for run in pairs + triples {
                for image in images {
                    var operations: [Operation] = []
                    var stepwise = image
                    for (_, make) in run {
                        // Each step is made for the image it acts on (a crop's rectangle follows its size).
                        let operation = make(stepwise)
                        operations.append(operation)
                        stepwise = try RenderPipeline(operations: [operation]).render(stepwise, on: CPUBackend())
                    }
                    let pipeline = try RenderPipeline(operations: operations)
                    let label = run.map(\.0).joined(separator: ", ") + " of \(image.width)×\(image.height) \(image.depth), \(seed)"
                    #expect(try pipeline.graph(width: image.width, height: image.height).passes.count == 1, "\(label)")
                    for backend in backends {
                        #expect(try pipeline.render(image, on: backend) == stepwise, "\(label) on \(backend.kind)")
                    }
                }
            }
        }
    }

    /// Turns and mirrors with a resize right after them (an EXIF orientation, `--rotate`, `--flip`, then `--resize`)
    /// resample first, on the rows as stored, and turn the smaller image, where that image held whole is no more than
    /// the source's rows and a quarter (packed rows where the turns end the graph, floats where an operation follows
    /// them: a thumbnail, not an upscale past a quarter), and not for `nearest` (its ties would fall to the other side
    /// of a mirrored axis): a quarter-turned phone photo was read by columns and held whole at full size (3 × the CPU
    /// of the same resize unturned). The picture is the one the operations give one at a time, within the agreement
    /// bound, for every fit and filter; on both backends.
    @Test("a resize after turns and mirrors runs first, the picture within a level of the operations one at a time")
    func aResizeAfterTurnsRunsFirst() throws {
        let seed = TestSeed()
        let images = RandomImages.all(seed: seed.value).filter { $0.width > 2 && $0.height > 2 }
        let turns: [[Render.Operation]] = [[.rotate(Rotate(degrees: 90))], [.rotate(Rotate(degrees: 270)), .flip(Flip(axis: .h))],
                                           [.rotate(Rotate(degrees: 180))], [.flip(Flip(axis: .v))]]
        let resizes: [Resize] = [Resize(width: 7, height: nil, fit: .inside), Resize(width: 5, height: 9, fit: .cover),
                                 Resize(width: 6, height: 4, fit: .fill, filter: .bilinear), Resize(width: nil, height: 3, fit: .inside),
                                 Resize(width: 5, height: nil, fit: .inside, filter: .nearest),
                                 Resize(width: 40, height: nil, fit: .inside, upscale: true)]
        try withVulkanIfAvailable { vulkan in
            let backends: [any PassBackend] = [CPUBackend()] + (vulkan.map { [$0] } ?? [])
            for turn in turns {
                for resize in resizes {
                    let pipeline = try RenderPipeline(operations: turn + [.resize(resize)])
                    for image in images {
                        let label = "\(turn.map(\.name)) then \(resize) of \(image.width)×\(image.height) \(image.depth), \(seed)"
                        let turned = try RenderPipeline(operations: turn).render(image, on: CPUBackend())
                        let stepwise = try RenderPipeline(operations: [.resize(resize)]).render(turned, on: CPUBackend())
                        let kernels = try pipeline.graph(width: image.width, height: image.height).passes.map(\.kernel.name)
                        // (An image the resize leaves its size, being smaller than the box, is only turned.) What the
                        // resample makes: a cover's crop of the resize, no more.
                        let resized = resize.resampledSize(width: turned.width, height: turned.height)
                        let made = resize.fit != .cover ? resized
                            : (width: min(resize.width ?? resized.width, resized.width), height: min(resize.height ?? resized.height, resized.height))
                        // Held as packed rows where the turns end the graph, as floats where a sharpen follows.
                        let sharpened = try RenderPipeline(operations: turn + [.resize(resize), .sharpen(Sharpen(amount: 1))])
                            .graph(width: image.width, height: image.height).passes.map(\.kernel.name)
                        for (kernels, bytes) in [(kernels, 4), (sharpened, 16)] {
                            let small = made.width * made.height * bytes <= image.width * image.height * 5
                            if kernels.contains("resample") && resize.filter != .nearest && small {
                                #expect(kernels.first == "resample", "the resize first: \(kernels), \(label)")
                            } else if !small || resize.filter == .nearest {
                                #expect(kernels.first != "resample", "the turns first: \(kernels), \(label)")
                            }
                        }
                        for backend in backends {
                            let made = try pipeline.render(image, on: backend)
                            let difference = maxDifference(made, samples(stepwise), width: stepwise.width, height: stepwise.height)
                            #expect(difference.map { $0 <= bound(image.depth) } == true,
                                    "\(difference.map(String.init) ?? "another size") on \(backend.kind): \(label)")
                        }
                    }
                }
            }
        }
    }

    @Test("flip", arguments: Flip.Axis.allCases)
    func flip(_ axis: Flip.Axis) throws {
        try withVulkanIfAvailable { vulkan in
            try checkAgreement("flip \(axis)", vulkan: vulkan) { _ in
                [.flip(Flip(axis: axis))]
            } reference: { image, input in
                let w = image.width, h = image.height
                let source: (Int, Int) -> (Int, Int) = axis == .h ? { x, y in (w - 1 - x, y) } : { x, y in (x, h - 1 - y) }
                return Reference.remap(input, width: w, height: h, source)
            }
        }
    }
}
