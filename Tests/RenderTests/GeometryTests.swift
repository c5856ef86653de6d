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
