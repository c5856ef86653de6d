import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Render
import Testing

@Suite("watermark: CPU and Vulkan agree with the reference")
struct WatermarkTests {
    @Test("watermark", arguments: Watermark.Position.allCases)
    func watermark(_ position: Watermark.Position) throws {
        let seed = TestSeed()
        var generator = seed.generator
        let mark = TestImages.image(width: 7, height: 5, depth: .eight, alpha: true, using: &generator)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kiln-mark-\(UUID().uuidString).png").path
        try Data(PNGEncoder.encode(mark)).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let watermark = Watermark(file: file, position: position, opacity: 0.7, margin: 2, scale: 0.5)
        try withVulkanIfAvailable { vulkan in
            try checkAgreement("watermark \(position)", vulkan: vulkan, seed: seed) { _ in
                [.watermark(watermark)]
            } reference: { image, input in
                let w = image.width, h = image.height
                let mw = max(1, Int((0.5 * Double(w)).rounded()))
                let mh = max(1, Int((5.0 * Double(mw) / 7).rounded()))
                let sized = Reference.resize(ReferenceImage(mark), width: mw, height: mh, filter: .lanczos3)
                let origin = switch position {
                case .tl: (2, 2)
                case .tr: (w - mw - 2, 2)
                case .bl: (2, h - mh - 2)
                case .br: (w - mw - 2, h - mh - 2)
                case .center: ((w - mw) / 2, (h - mh) / 2)
                }
                return Reference.composite(input, mark: sized, origin: origin, opacity: 0.7)
            }
        }
    }

    @Test("an unreadable watermark is an error naming the file")
    func unreadable() {
        #expect(throws: RenderError.self) { try RenderPipeline(operations: [.watermark(Watermark(file: "/nonexistent/mark.png"))]) }
    }
}
