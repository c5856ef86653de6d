import Compute
import PNGCodec
import Render
import Synchronization

/// Runs the render stage of every image on the backend the job chose, and owns
/// the mid-job fallback of SPEC §3: when the Vulkan path fails (device lost,
/// out of device memory, pipeline error) the image and all remaining work move
/// to the CPU, with one warning — unless a GPU was required, in which case the
/// job must stop (resumably) instead.
///
/// This is also where an image's memory is decided (SPEC §8): it streams from
/// its decoder in strips (`StripExecutor`), unless it is Adam7-interlaced or
/// its first operation reads rows backwards (rotate, flip v), when it is
/// decoded whole in its stored 8/16-bit form; on Vulkan, an image whose whole
/// float graph is small goes to the device whole (one upload, one download).
public final class Renderer: Sendable {
    /// The bound operations, or why they cannot be bound (then every image fails with it).
    private let pipeline: Result<RenderPipeline, RenderError>
    private let current: Mutex<any StripBackend>
    private let fallback: @Sendable () -> any StripBackend
    private let allowFallback: Bool
    private let warn: @Sendable (String) -> Void

    /// Float bytes of a graph at most that the Vulkan path runs whole on the device.
    static let wholeOnDevice = 64 << 20

    /// A renderer applying `operations`, starting on `backend`. `allowFallback` is false for `--device gpu`.
    /// No image made may exceed `maxPixels` (`RenderPipeline`). An invalid operation or
    /// unreadable watermark makes every `render` throw that `RenderError` (the CLI checks
    /// both before a job starts).
    public init(backend: any RenderBackend, operations: [Operation], maxPixels: Int = RenderPipeline.defaultMaxPixels,
                allowFallback: Bool, warn: @escaping @Sendable (String) -> Void) {
        pipeline = Result { () throws(RenderError) in try RenderPipeline(operations: operations, maxPixels: maxPixels) }
        // Both of Kiln's backends run strips; anything else renders on the CPU.
        current = Mutex(backend as? any StripBackend ?? CPUBackend())
        fallback = { CPUBackend() }
        self.allowFallback = allowFallback
        self.warn = warn
    }

    /// The backend in use now, e.g. for the progress display.
    public var label: String { current.withLock { $0.label } }

    /// About the most bytes rendering and encoding an image of `header` holds
    /// (for the job's memory budget): the strips, the image held whole where it
    /// must be, the output in its stored form and its encoding.
    /// - Throws: `RenderError` when the operations do not apply to the image.
    public func workingSet(of header: PNGHeader) throws -> Int {
        let pipeline = try pipeline.get()
        let graph = try pipeline.graph(width: header.width, height: header.height)
        let depth = header.decodedDepth
        let stored = header.width * header.height * 4 * depth.bytesPerSample
        let result = graph.size(of: graph.result, source: (header.width, header.height))
        // The output packed, its filtered rows and its encoding.
        let output = 3 * result.width * result.height * 4 * depth.bytesPerSample
        if current.withLock({ $0.kind }) == .vulkan, let floats = wholeFloatBytes(graph, header), floats <= Self.wholeOnDevice {
            return stored + floats + output
        }
        let strips = StripExecutor.estimatedBytes(graph: graph, width: header.width, height: header.height, depth: depth)
        return strips + output + (readsWhole(graph, header) ? stored : 0)
    }

    /// Renders the image `reader` decodes, then reads the file to its end and
    /// returns its metadata too. `reopen` opens the file again when the image
    /// must start over on the CPU after a device failure. `progress` hears the
    /// fraction of the image rendered as strips finish.
    /// Throws `PNGError`s (the file), `RenderError`s (the image or the job),
    /// `RenderStop` (the required GPU failed).
    public func render(_ reader: PNGRowReader, reopen: () throws -> PNGRowReader,
                       progress: (Double) -> Void = { _ in }) throws -> (pixels: PixelBuffer, metadata: PNGMetadata)
    {
        let pipeline = try pipeline.get()
        let backend = current.withLock { $0 }
        do {
            return try render(reader, pipeline: pipeline, on: backend, progress: progress)
        } catch let error as ComputeError {
            guard backend.kind == .vulkan else { throw error }
            guard allowFallback else { throw RenderStop(reason: "\(backend.label): \(error)") }
            let (cpu, switched) = current.withLock { active -> (any StripBackend, Bool) in
                if active.kind == .vulkan {
                    active = fallback()
                    return (active, true)
                }
                return (active, false)
            }
            if switched {
                warn("the Vulkan path failed (\(error)); continuing on the CPU")
            }
            return try render(reopen(), pipeline: pipeline, on: cpu, progress: progress)
        }
    }

    private func render(_ reader: PNGRowReader, pipeline: RenderPipeline, on backend: any StripBackend,
                        progress: (Double) -> Void) throws -> (pixels: PixelBuffer, metadata: PNGMetadata)
    {
        let header = reader.header
        let graph = try pipeline.graph(width: header.width, height: header.height)
        let pixels: PixelBuffer
        if backend.kind == .vulkan, let floats = wholeFloatBytes(graph, header), floats <= Self.wholeOnDevice {
            pixels = try backend.render(reader.readRemaining(), graph: graph)
        } else if readsWhole(graph, header) {
            pixels = try StripExecutor(graph: graph, source: reader.readRemaining(), backend: backend).render(progress: progress)
        } else {
            // The decoder reads ahead on its own thread while the passes run.
            let prefetcher = RowPrefetcher.start(reader)
            do {
                pixels = try StripExecutor(graph: graph, source: prefetcher, backend: backend).render(progress: progress)
                try prefetcher.finish()
            } catch {
                prefetcher.cancel()
                throw error
            }
        }
        return (pixels, try reader.finish())
    }

    /// Whether the image is decoded whole: interlaced, or read backwards first.
    private func readsWhole(_ graph: PassGraph, _ header: PNGHeader) -> Bool {
        header.interlaced || StripExecutor.readsSourceBackwards(graph)
    }

    /// The float bytes of every image of the graph at once (nil on overflow).
    private func wholeFloatBytes(_ graph: PassGraph, _ header: PNGHeader) -> Int? {
        var pixels = header.width * header.height
        for index in graph.passes.indices {
            let size = graph.size(of: .pass(index), source: (header.width, header.height))
            pixels += size.width * size.height
        }
        let (bytes, overflow) = pixels.multipliedReportingOverflow(by: MemoryLayout<SIMD4<Float>>.stride)
        return overflow ? nil : bytes
    }
}

/// Thrown when the required GPU fails: the job stops, resumable, rather than
/// quietly continuing somewhere the user did not ask for.
public struct RenderStop: Error, CustomStringConvertible {
    /// What failed.
    public let reason: String
    public var description: String { "the required GPU failed: \(reason)" }
}
