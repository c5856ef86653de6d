import Compute
import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Render
import Testing

/// Every numeric parameter against `ParameterRanges`: both ends accepted, the
/// values just past them, NaN and ±∞ refused, naming the operation and key.
@Suite("parameters are checked where they enter")
struct ParameterValidationTests {
    /// An operation with one parameter set to a value, and that parameter's key and range.
    struct Case: Sendable, CustomStringConvertible {
        let key: String
        let low: Double, high: Double
        let make: @Sendable (Double) -> Render.Operation
        var description: String { key }
    }

    static let cases: [Case] = [
        Case(key: "crop.x", low: 0, high: Double(Int32.max)) { .crop(Crop(x: Int($0), y: 0, width: 1, height: 1)) },
        Case(key: "crop.y", low: 0, high: Double(Int32.max)) { .crop(Crop(x: 0, y: Int($0), width: 1, height: 1)) },
        Case(key: "crop.width", low: 1, high: Double(Int32.max)) { .crop(Crop(x: 0, y: 0, width: Int($0), height: 1)) },
        Case(key: "crop.height", low: 1, high: Double(Int32.max)) { .crop(Crop(x: 0, y: 0, width: 1, height: Int($0))) },
        Case(key: "resize.width", low: 1, high: 65536) { .resize(Resize(width: Int($0), height: nil)) },
        Case(key: "resize.height", low: 1, high: 65536) { .resize(Resize(width: nil, height: Int($0))) },
        Case(key: "adjust.brightness", low: -100, high: 100) { .adjust(Adjust(brightness: $0)) },
        Case(key: "adjust.contrast", low: -100, high: 100) { .adjust(Adjust(contrast: $0)) },
        Case(key: "adjust.saturation", low: -100, high: 100) { .adjust(Adjust(saturation: $0)) },
        Case(key: "adjust.exposure", low: -64, high: 64) { .adjust(Adjust(exposure: $0)) },
        Case(key: "adjust.gamma", low: 0.01, high: 100) { .adjust(Adjust(gamma: $0)) },
        Case(key: "blur.sigma", low: 0.01, high: 1000) { .blur(Blur(sigma: $0)) },
        Case(key: "sharpen.amount", low: 0, high: 100) { .sharpen(Sharpen(amount: $0)) },
        Case(key: "sharpen.sigma", low: 0.01, high: 1000) { .sharpen(Sharpen(amount: 1, sigma: $0)) },
        Case(key: "sharpen.threshold", low: 0, high: 1) { .sharpen(Sharpen(amount: 1, threshold: $0)) },
        Case(key: "watermark.opacity", low: 0, high: 1) { .watermark(Watermark(file: "m.png", opacity: $0)) },
        Case(key: "watermark.margin", low: 0, high: Double(Int32.max)) { .watermark(Watermark(file: "m.png", margin: Int($0))) },
        Case(key: "watermark.scale", low: 0.001, high: 1) { .watermark(Watermark(file: "m.png", scale: $0)) },
    ]

    @Test(arguments: cases)
    func rangeEndsAcceptedAndPastThemRefused(_ test: Case) throws {
        let parts = test.key.split(separator: ".").map(String.init)
        for value in [test.low, test.high] {
            #expect(throws: Never.self, "\(test.key) = \(value)") { try test.make(value).validate() }
        }
        let integral = test.low == test.low.rounded() && test.high == test.high.rounded() && test.high > 1000
        let past = integral ? [test.low - 1, test.high + 1] : [test.low - test.low.magnitude / 2 - 0.001, test.high * 1.5]
        var refused = past
        if !integral { refused += [.nan, .infinity, -.infinity] }
        for value in refused {
            do {
                try test.make(value).validate()
                Issue.record("\(test.key) = \(value) was accepted")
            } catch {
                guard case .invalidParameter(let parameter) = error else {
                    Issue.record("\(test.key) = \(value): \(error)")
                    continue
                }
                #expect(parameter.operation == parts[0] && parameter.key == parts[1], "\(parameter)")
                #expect(parameter.problem.hasPrefix("must be "), "\(parameter)")
            }
        }
    }

    @Test("no image a graph makes may exceed the pixel limit, and a fixed output size is refused up front")
    func pixelLimit() throws {
        var generator = SeededGenerator(seed: 3)
        let image = TestImages.image(width: 6, height: 4, depth: .eight, alpha: false, using: &generator)
        let growing = try RenderPipeline(operations: [.resize(Resize(width: 600, height: nil, upscale: true))], maxPixels: 100_000)
        #expect(throws: RenderError.imageTooLarge(operation: "resize", width: 600, height: 400, limit: 100_000)) {
            try growing.render(image, on: CPUBackend())
        }
        // 1×65536 to 65536 wide: already its output, 65536×2³² (the output is checked before the image between
        // the passes, and named), exceeds Int32, whatever maxPixels says; refused before any tap table of 2³² rows
        // is built (or a second resize overflows Int).
        let twice = try RenderPipeline(operations: [.resize(Resize(width: 65536, height: nil, upscale: true)),
                                                    .resize(Resize(width: nil, height: 65536, upscale: true))],
                                       maxPixels: Int.max)
        #expect(throws: RenderError.imageTooLarge(operation: "resize", width: 65536, height: 65536 * 65536,
                                                  limit: Int(Int32.max))) {
            try twice.graph(width: 1, height: 65536)
        }
        #expect(throws: RenderError.imageTooLarge(operation: "resize", width: 60000, height: 60000, limit: 1_000_000_000)) {
            try RenderPipeline(operations: [.resize(Resize(width: 60000, height: 60000, fit: .fill, upscale: true))])
        }
        #expect(throws: Never.self) { try RenderPipeline(operations: [.resize(Resize(width: 60000, height: 60000, fit: .fill))]) }
    }

    @Test("a watermark margin past the image leaves the image as it was")
    func marginPastTheImage() throws {
        var generator = SeededGenerator(seed: 4)
        let image = TestImages.image(width: 9, height: 7, depth: .sixteen, alpha: true, using: &generator)
        let mark = FileManager.default.temporaryDirectory.appendingPathComponent("kiln-mark-\(UUID().uuidString).png").path
        try Data(PNGEncoder.encode(image)).write(to: URL(fileURLWithPath: mark))
        defer { try? FileManager.default.removeItem(atPath: mark) }
        for position in Watermark.Position.allCases where position != .center {
            let pipeline = try RenderPipeline(operations: [.watermark(Watermark(file: mark, position: position, margin: Int(Int32.max)))])
            #expect(try pipeline.render(image, on: CPUBackend()) == image, "\(position)")
        }
    }

    @Test("summaries of extreme values do not trap")
    func summaries() {
        #expect(Render.Operation.adjust(Adjust(brightness: 1e308)).summary == "brightness 1e+308")
        #expect(Render.Operation.blur(Blur(sigma: 8)).summary == "blur 8")
        // Every sharpen setting given is shown: "sharpen 1" hid the sigma of `--sharpen 1,2`.
        #expect(Render.Operation.sharpen(Sharpen(amount: 0.5)).summary == "sharpen 0.5")
        #expect(Render.Operation.sharpen(Sharpen(amount: 1, sigma: 2)).summary == "sharpen 1,2")
        #expect(Render.Operation.sharpen(Sharpen(amount: 1, sigma: 1, threshold: 0.05)).summary == "sharpen 1,1,0.05")
        #expect(Render.Operation.adjust(Adjust(saturation: .nan)).summary == "saturation nan")
    }
}
