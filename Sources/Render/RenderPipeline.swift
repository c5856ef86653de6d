public import Compute
import Foundation
public import PNGCodec
import Synchronization

/// A job's operation list, bound once: parameters checked and watermark files
/// decoded at creation; per image, `render` lowers the operations to a
/// `PassGraph` for that image's size and runs it on a backend (on Vulkan the
/// image stays on the device from upload to download).
public final class RenderPipeline: Sendable {
    /// The operations, in order.
    public let operations: [Operation]
    /// The most pixels any image of the graph may have (`maxPixels`, at most `Int32.max`).
    public let pixelLimit: Int
    /// The decoded watermark of each `watermark` operation, by index.
    private let marks: [Int: FloatImage]
    /// Graphs built for recent image sizes: a batch of same-sized images (icons,
    /// tiles) builds its filter taps once, not twice per image (estimate, render).
    private let graphs = Mutex<[Size: PassGraph]>([:])

    private struct Size: Hashable {
        let width: Int
        let height: Int
    }

    /// Sizes whose graphs are kept at once.
    private static let cachedSizes = 16

    /// The default `maxPixels`: SPEC §5's `--max-pixels`.
    public static let defaultMaxPixels = PNGDecoder.Limits.defaultMaxPixels

    /// Binds `operations`; throws `RenderError` for a bad parameter, an unreadable
    /// watermark, or a resize whose every output exceeds `maxPixels`. No image the
    /// graph makes — output, intermediate or resized watermark — may exceed
    /// `maxPixels` pixels; the Vulkan kernels address pixels with `Int32`, which
    /// bounds the limit too.
    public init(operations: [Operation], maxPixels: Int = defaultMaxPixels) throws(RenderError) {
        pixelLimit = min(max(1, maxPixels), ParameterRanges.pixels.bounds.upperBound)
        var marks: [Int: FloatImage] = [:]
        for (index, operation) in operations.enumerated() {
            try operation.validate()
            if case .resize(let resize) = operation, let size = resize.fixedSize {
                try PassBuilder.check(size, operation: operation.name, limit: pixelLimit)
            }
            guard case .watermark(let watermark) = operation else { continue }
            do {
                let limits = PNGDecoder.Limits(maxPixels: pixelLimit)
                marks[index] = UnpackKernel.run(try PNGDecoder.decode(contentsOf: watermark.file, limits: limits))
            } catch {
                throw .unreadableWatermark(path: watermark.file, reason: "\(error)")
            }
        }
        self.operations = operations
        self.marks = marks
    }

    /// The passes of an image of `width × height`; throws `RenderError` (e.g. a
    /// crop that misses it, or an image larger than `pixelLimit`: `PassBuilder.resample`,
    /// through which every growing image goes, checks before it builds anything).
    package func graph(width: Int, height: Int) throws(RenderError) -> PassGraph {
        let size = Size(width: width, height: height)
        if let graph = graphs.withLock({ $0[size] }) { return graph }
        let graph = try build(width: width, height: height)
        graphs.withLock { graphs in
            if graphs.count >= Self.cachedSizes { graphs.removeAll(keepingCapacity: true) }
            graphs[size] = graph
        }
        return graph
    }

    private func build(width: Int, height: Int) throws(RenderError) -> PassGraph {
        var builder = PassBuilder(width: width, height: height, pixelLimit: pixelLimit)
        for (index, operation) in operations.enumerated() {
            switch operation {
            case .crop(let crop): try crop.lower(into: &builder)
            case .rotate(let rotate): rotate.lower(into: &builder)
            case .flip(let flip): flip.lower(into: &builder)
            case .resize(let resize): try resize.lower(into: &builder)
            case .adjust(let adjust): adjust.lower(into: &builder)
            case .blur(let blur): blur.lower(into: &builder)
            case .sharpen(let sharpen): sharpen.lower(into: &builder)
            case .grayscale: Adjust.grayscale.lower(into: &builder)
            case .watermark(let watermark): try watermark.lower(into: &builder, mark: marks[index]!)
            }
        }
        return builder.graph
    }

    /// Renders `image` on `backend`, whole. `RenderError`s are about the image or the
    /// job; `ComputeError`s about the device (the caller may retry on the CPU).
    public func render(_ image: PixelBuffer, on backend: any RenderBackend) throws -> PixelBuffer {
        try backend.render(image, graph: graph(width: image.width, height: image.height))
    }

    /// Renders the image `source` gives in strips (SPEC §8) on `backend`,
    /// `chunking` deciding their height (the output does not depend on it).
    /// A forward-only source must not be read backwards (see `StripExecutor.readsSourceBackwards`).
    /// Throws as `render(_:on:)`, and the source's `PNGError`s.
    package func render(_ source: any RowSource, on backend: any StripBackend,
                        chunking: StripExecutor.Chunking = .standard) throws -> PixelBuffer {
        try StripExecutor(graph: graph(width: source.width, height: source.height), source: source, backend: backend,
                          chunking: chunking).render()
    }
}
