public import Compute
import Foundation
public import PNGCodec

/// A job's operation list, bound once: parameters checked and watermark files
/// decoded at creation; per image, `render` lowers the operations to a
/// `PassGraph` for that image's size and runs it on a backend (on Vulkan the
/// image stays on the device from upload to download).
public final class RenderPipeline: Sendable {
    /// The operations, in order.
    public let operations: [Operation]
    /// The decoded watermark of each `watermark` operation, by index.
    private let marks: [Int: FloatImage]

    /// Binds `operations`; throws `RenderError` for a bad parameter or an unreadable watermark.
    public init(operations: [Operation]) throws(RenderError) {
        var marks: [Int: FloatImage] = [:]
        for (index, operation) in operations.enumerated() {
            try operation.validate()
            guard case .watermark(let watermark) = operation else { continue }
            do {
                marks[index] = UnpackKernel.run(try PNGDecoder.decode(contentsOf: watermark.file))
            } catch {
                throw .unreadableWatermark(path: watermark.file, reason: "\(error)")
            }
        }
        self.operations = operations
        self.marks = marks
    }

    /// The passes of an image of `width × height`; throws `RenderError` (e.g. a crop that misses it).
    package func graph(width: Int, height: Int) throws(RenderError) -> PassGraph {
        var builder = PassBuilder(width: width, height: height)
        for (index, operation) in operations.enumerated() {
            switch operation {
            case .crop(let crop): try crop.lower(into: &builder)
            case .rotate(let rotate): rotate.lower(into: &builder)
            case .flip(let flip): flip.lower(into: &builder)
            case .resize(let resize): resize.lower(into: &builder)
            case .adjust(let adjust): adjust.lower(into: &builder)
            case .blur(let blur): blur.lower(into: &builder)
            case .sharpen(let sharpen): sharpen.lower(into: &builder)
            case .grayscale: Adjust.grayscale.lower(into: &builder)
            case .watermark(let watermark): watermark.lower(into: &builder, mark: marks[index]!)
            }
        }
        return builder.graph
    }

    /// Renders `image` on `backend`. `RenderError`s are about the image or the
    /// job; `ComputeError`s about the device (the caller may retry on the CPU).
    public func render(_ image: PixelBuffer, on backend: any RenderBackend) throws -> PixelBuffer {
        try backend.render(image, graph: graph(width: image.width, height: image.height))
    }
}
