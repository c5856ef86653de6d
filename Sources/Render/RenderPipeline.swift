package import Compute
import Foundation
public import ImageCore
import Locking

/// A job's operation list, bound once: parameters checked and watermark files
/// decoded at creation. Per image, ``render(_:decodesWhole:shrunkFrom:on:chunking:mode:into:progress:)``
/// — the one entry point of the render stage, for the export job, the tests
/// and `kiln-bench` alike — lowers the operations to a `PassGraph` for that
/// image's size, decides its ``RenderSchedule`` (whole on the device or strips,
/// chunking) and runs it; ``workingSet(of:on:chunking:)`` reads the same schedule.
public final class RenderPipeline: Sendable {
    /// The operations, in order.
    public let operations: [Operation]
    /// The most pixels any image of the graph may have (`maxPixels`, at most `Int32.max`).
    public let pixelLimit: Int
    /// The decoded watermark of each `watermark` operation, by index.
    private let marks: [Int: FloatImage]
    /// Graphs built for recent image sizes (16 at once): a batch of same-sized images
    /// (icons, tiles) builds its filter taps once, not twice per image (estimate, render).
    private let graphs = BoundedCache<Size, Built>(capacity: 16)

    /// An image size's passes, and what they did beyond its pixels.
    private struct Built: Sendable {
        let graph: PassGraph
        let notes: RenderNotes
    }

    private struct Size: Hashable, Sendable {
        let width: Int
        let height: Int
        let shrunkFrom: ShrinkOnLoad?
    }

    /// The default `maxPixels`: SPEC §5's `--max-pixels`.
    public static let defaultMaxPixels = DecodingLimits.defaultMaxPixels

    /// Binds `operations`; throws `RenderError` for a bad parameter, an unreadable
    /// watermark, or a resize whose every output exceeds `maxPixels`. No image the
    /// graph makes — output, intermediate or resized watermark — may exceed
    /// `maxPixels` pixels; the Vulkan kernels address pixels with `Int32`, which
    /// bounds the limit too. `loadImage` decodes a watermark file within the
    /// limits it is given (the render layer knows no codec: the caller's registry does).
    public init(operations: [Operation], maxPixels: Int = defaultMaxPixels,
                loadImage: (_ path: String, _ limits: DecodingLimits) throws -> PixelBuffer) throws(RenderError) {
        pixelLimit = min(max(1, maxPixels), ParameterRanges.pixels.bounds.upperBound)
        var marks: [Int: FloatImage] = [:]
        for (index, operation) in operations.enumerated() {
            try operation.validate()
            if case .resize(let resize) = operation, let size = resize.fixedSize {
                try PassBuilder.check(size, operation: operation.name, limit: pixelLimit)
            }
            guard case .watermark(let watermark) = operation else { continue }
            do {
                marks[index] = UnpackKernel.run(try loadImage(watermark.file, DecodingLimits(maxPixels: pixelLimit)))
            } catch {
                throw .unreadableWatermark(path: watermark.file, reason: "\(error)")
            }
        }
        self.operations = operations
        self.marks = marks
    }

    /// This pipeline with `geometry` applied first (an image's EXIF
    /// orientation, ``Operation/upright(exifOrientation:)``), sharing the
    /// watermarks already decoded: only rotations and flips, which hold no
    /// file and no parameter an image can fail.
    public func prepending(_ geometry: [Operation]) -> RenderPipeline {
        precondition(geometry.allSatisfy(\.isTurnOrMirror), "only rotations and flips are prepended")
        guard !geometry.isEmpty else { return self }
        return RenderPipeline(operations: geometry + operations, pixelLimit: pixelLimit,
                              marks: Dictionary(uniqueKeysWithValues: marks.map { ($0.key + geometry.count, $0.value) }))
    }

    private init(operations: [Operation], pixelLimit: Int, marks: [Int: FloatImage]) {
        self.operations = operations
        self.pixelLimit = pixelLimit
        self.marks = marks
    }

    /// The passes of an image of `width × height` (`shrunkFrom`: the picture's own size, when its
    /// decoder shrank it on load); throws `RenderError` (e.g. a
    /// crop that misses it, or an image larger than `pixelLimit`: `PassBuilder.resample`,
    /// through which every growing image goes, checks before it builds anything).
    package func graph(width: Int, height: Int, shrunkFrom: ShrinkOnLoad? = nil) throws(RenderError) -> PassGraph {
        try built(width: width, height: height, shrunkFrom: shrunkFrom).graph
    }

    /// What the operations do to an image of `width × height` beyond its pixels (a resize that leaves it
    /// its size, a watermark that misses it), for the job's warnings.
    /// - Throws: `RenderError` when the operations do not apply to it.
    public func notes(width: Int, height: Int, shrunkFrom: ShrinkOnLoad? = nil) throws(RenderError) -> RenderNotes {
        try built(width: width, height: height, shrunkFrom: shrunkFrom).notes
    }

    private func built(width: Int, height: Int, shrunkFrom: ShrinkOnLoad?) throws(RenderError) -> Built {
        try graphs.value(for: Size(width: width, height: height, shrunkFrom: shrunkFrom)) { () throws(RenderError) in
            try build(width: width, height: height, shrunkFrom: shrunkFrom)
        }
    }

    private func build(width: Int, height: Int, shrunkFrom: ShrinkOnLoad?) throws(RenderError) -> Built {
        var builder = PassBuilder(width: width, height: height, pixelLimit: pixelLimit, shrunkFrom: shrunkFrom)
        // Turns and mirrors (an EXIF orientation's, --rotate, --flip) and a resize right after them that shrinks the
        // picture run in the other order: the resize first, on the rows as stored (``Resize/runsFirst(after:on:endsInACopy:)``).
        let turns = Array(operations.prefix(while: \.isTurnOrMirror))
        var start = 0
        if !turns.isEmpty, turns.count < operations.count, case .resize(let resize) = operations[turns.count],
           resize.runsFirst(after: turns, on: builder, endsInACopy: operations[(turns.count + 1)...].allSatisfy {
               if case .crop = $0 { true } else { $0.isTurnOrMirror }
           }) {
            try resize.lower(into: &builder, after: turns)
            start = turns.count + 1
        }
        for (index, operation) in operations.enumerated() where index >= start {
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
        return Built(graph: builder.graph, notes: builder.notes)
    }

    /// The size of the output an image of `width × height` gets (`shrunkFrom`: see ``graph(width:height:shrunkFrom:)``).
    /// - Throws: `RenderError` when the operations do not apply to it.
    public func outputSize(width: Int, height: Int,
                           shrunkFrom: ShrinkOnLoad? = nil) throws(RenderError) -> (width: Int, height: Int) {
        let graph = try graph(width: width, height: height, shrunkFrom: shrunkFrom)
        return graph.size(of: graph.result, source: (width, height))
    }

    /// How an image like `source` runs on `backend`.
    /// - Throws: `RenderError` when the operations do not apply to it.
    package func schedule(for source: RenderSchedule.Source, shrunkFrom: ShrinkOnLoad? = nil, on backend: any PassBackend,
                          chunking: StripExecutor.Chunking = .standard,
                          mode: RenderSchedule.Mode? = nil) throws(RenderError) -> RenderSchedule {
        RenderSchedule(graph: try graph(width: source.width, height: source.height, shrunkFrom: shrunkFrom), source: source,
                       backend: backend, chunking: chunking, mode: mode)
    }

    /// About the most bytes rendering an image like `source` on `backend` holds (its schedule's estimate).
    /// - Throws: `RenderError` when the operations do not apply to it.
    package func workingSet(of source: RenderSchedule.Source, shrunkFrom: ShrinkOnLoad? = nil, on backend: any PassBackend,
                            chunking: StripExecutor.Chunking = .standard) throws(RenderError) -> Int {
        try schedule(for: source, shrunkFrom: shrunkFrom, on: backend, chunking: chunking).estimatedBytes
    }

    /// Renders the image `source` gives on `backend` and hands the output rows
    /// to `sink` (of ``outputSize(width:height:)`` at the source's depth);
    /// `decodesWhole` says its rows exist only once it is decoded whole.
    /// `chunking` decides the strips' height (the output does not depend on
    /// it); `mode` forces whole or strips (nil: the schedule decides); `progress`
    /// hears the fraction of the work done (``StripExecutor/render(into:progress:)``).
    /// Throws `RenderError`s (the image or the job), the backend's `ComputeError`s
    /// (the caller may retry on the CPU), the source's and the sink's errors.
    package func render(_ source: any RowSource, decodesWhole: Bool = false, shrunkFrom: ShrinkOnLoad? = nil,
                        on backend: any PassBackend, chunking: StripExecutor.Chunking = .standard,
                        mode: RenderSchedule.Mode? = nil, into sink: any RowSink,
                        progress: (Double) -> Void = { _ in }) throws {
        let shape = RenderSchedule.Source(width: source.width, height: source.height, depth: source.depth,
                                          decodesWhole: decodesWhole)
        try schedule(for: shape, shrunkFrom: shrunkFrom, on: backend, chunking: chunking, mode: mode)
            .run(from: source, into: sink, progress: progress)
    }

    /// ``render(_:decodesWhole:shrunkFrom:on:chunking:mode:into:progress:)`` into a buffer.
    package func render(_ source: any RowSource, shrunkFrom: ShrinkOnLoad? = nil, on backend: any PassBackend,
                        chunking: StripExecutor.Chunking = .standard, mode: RenderSchedule.Mode? = nil) throws -> PixelBuffer {
        let size = try outputSize(width: source.width, height: source.height, shrunkFrom: shrunkFrom)
        let sink = PixelBufferSink(width: size.width, height: size.height, depth: source.depth)
        try render(source, shrunkFrom: shrunkFrom, on: backend, chunking: chunking, mode: mode, into: sink)
        return sink.takeImage()
    }
}
