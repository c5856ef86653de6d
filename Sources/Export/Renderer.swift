import Color
import Compute
import ImageCore
import Render
import Locking

/// Runs the render stage of every image on the backend the job chose, and owns
/// the mid-job fallback of SPEC §3: when the Vulkan path fails (device lost,
/// out of device memory, pipeline error) the image and all remaining work move
/// to the CPU, with one warning — unless a GPU was required, in which case the
/// job must stop (resumably) instead. How each image runs (whole on the
/// device, or in strips; its source read whole or streamed) is its
/// `RenderSchedule`'s decision, reached through `RenderPipeline`.
public final class Renderer: Sendable {
    /// The bound operations, or why they cannot be bound (then every image fails with it).
    private let bound: Result<RenderPipeline, RenderError>
    /// The pipeline with each EXIF orientation's operations first (2–8), made when first needed.
    private let oriented = Locked<[Int: RenderPipeline]>([:])
    /// The job's operations, bound again for images of other colours than sRGB's (by their profile's bytes),
    /// their watermarks converted into those colours; nil when no operation draws a watermark. At most 4 kept: each
    /// holds its marks as floats, beside the budget's measure of what kiln holds at the start (a batch has a few
    /// profiles; past 4, a mark is decoded again for an image of a profile not kept).
    private let marked: (operations: [Operation], maxPixels: Int, pipelines: BoundedCache<[UInt8], Result<RenderPipeline, RenderError>>)?
    private let current: Locked<any PassBackend>
    /// The backend the job started on: its traffic stays counted after a fallback.
    private let started: any RenderBackend
    private let fallback: @Sendable () -> any PassBackend
    private let allowFallback: Bool
    private let warn: @Sendable (String) -> Void

    /// A renderer applying `operations`, starting on `backend`. `allowFallback` is false for `--device gpu`.
    /// No image made may exceed `maxPixels` (`RenderPipeline`). An invalid operation or
    /// unreadable watermark makes every `render` throw that `RenderError` (the CLI checks
    /// both before a job starts).
    public init(backend: any RenderBackend, operations: [Operation], maxPixels: Int = RenderPipeline.defaultMaxPixels,
                allowFallback: Bool, warn: @escaping @Sendable (String) -> Void) {
        bound = Result { () throws(RenderError) in
            try RenderPipeline(operations: operations, maxPixels: maxPixels) { path, limits in
                try ImageCodecs.decode(contentsOf: path, limits: limits)
            }
        }
        let drawsMark = operations.contains { if case .watermark = $0 { true } else { false } }
        marked = drawsMark ? (operations, maxPixels, BoundedCache(capacity: 4)) : nil
        // Both of Kiln's backends run passes; anything else renders on the CPU.
        current = Locked(backend as? any PassBackend ?? CPUBackend())
        started = backend
        fallback = { CPUBackend() }
        self.allowFallback = allowFallback
        self.warn = warn
    }

    /// The backend in use now, e.g. for the progress display.
    public var label: String { current.withLock { $0.label } }

    /// What crossed the host/device boundary for this job's images so far
    /// (`--progress json`'s `end` event): zero on the CPU.
    public var traffic: DeviceTraffic { started.traffic }

    /// The size of the output of an image of `header`.
    /// - Throws: `RenderError` when the operations do not apply to the image.
    func outputSize(of header: ImageHeader, orientation: Int = 1) throws -> (width: Int, height: Int) {
        try pipeline(for: orientation).outputSize(width: header.width, height: header.height, shrunkFrom: header.shrunkFrom)
    }

    /// What the operations do to an image of `header` beyond its pixels (``RenderPipeline/notes(width:height:shrunkFrom:)``).
    /// - Throws: `RenderError` when the operations do not apply to the image.
    func notes(of header: ImageHeader, orientation: Int = 1) throws -> RenderNotes {
        try pipeline(for: orientation).notes(width: header.width, height: header.height, shrunkFrom: header.shrunkFrom)
    }

    /// The operations an image stored with EXIF `orientation` gets: that
    /// orientation's rotation or flip (``Operation/upright(exifOrientation:)``),
    /// then the job's. The job's own operations and their watermarks are bound
    /// once; only the first image of each orientation builds its pipeline.
    /// - Throws: the `RenderError` that binding the job's operations met.
    private func pipeline(for orientation: Int) throws -> RenderPipeline {
        let base = try bound.get()
        let geometry = Operation.upright(exifOrientation: orientation)
        guard !geometry.isEmpty else { return base }
        return oriented.withLock { cache in
            if let made = cache[orientation] { return made }
            let made = base.prepending(geometry)
            cache[orientation] = made
            return made
        }
    }

    /// As ``pipeline(for:)``, for an image whose colours `colours` defines (nil: sRGB's), the operations' watermarks
    /// converted into them; the first image of each profile binds the operations again (a watermark decoded again).
    private func pipeline(for orientation: Int, colours: ColorProfile?) throws -> RenderPipeline {
        guard let marked, let colours, ColorConverter.changesColoursWhenDropped(colours) else { return try pipeline(for: orientation) }
        let base = try marked.pipelines.value(for: colours.bytes) {
            Result { () throws(RenderError) in
                try RenderPipeline(operations: marked.operations, maxPixels: marked.maxPixels) { path, limits in
                    try ImageCodecs.decode(contentsOf: path, limits: limits, shownIn: colours)
                }
            }
        }.get()
        let geometry = Operation.upright(exifOrientation: orientation)
        return geometry.isEmpty ? base : base.prepending(geometry)
    }

    /// About the most bytes rendering an image of `header` holds, as its
    /// schedule on the current backend says (for the job's memory budget).
    /// - Throws: `RenderError` when the operations do not apply to the image.
    func workingSet(of header: ImageHeader, orientation: Int = 1) throws -> Int {
        try pipeline(for: orientation).workingSet(of: Self.source(header), shrunkFrom: header.shrunkFrom,
                                                  on: current.withLock { $0 })
    }

    /// Renders the image `reader` decodes into a sink `makeSink` makes (of
    /// the output's size, at the source's depth), then reads the file to its
    /// end and returns its metadata. `reopen` opens the file again, and
    /// `makeSink` is asked again, when the image must start over on the CPU
    /// after a device failure. `progress` hears the fraction of the image
    /// rendered as strips finish. `orientation` is the source's EXIF
    /// orientation to apply first (1: none).
    /// Throws the reader's errors (the file), `RenderError`s (the image or the
    /// job), `RenderStop` (the required GPU failed), the sink's errors.
    func render(_ reader: any ImageReader, orientation: Int = 1, colours: ColorProfile? = nil, reopen: () throws -> any ImageReader,
                makeSink: (_ width: Int, _ height: Int, _ depth: PixelBuffer.Depth) throws -> any RowSink,
                progress: (Double) -> Void = { _ in }) throws -> ImageMetadata {
        let pipeline = try self.pipeline(for: orientation, colours: colours)
        let backend = current.withLock { $0 }
        func attempt(_ reader: any ImageReader, on backend: any PassBackend) throws -> ImageMetadata {
            let size = try pipeline.outputSize(width: reader.width, height: reader.height, shrunkFrom: reader.header.shrunkFrom)
            let sink = try makeSink(size.width, size.height, reader.depth)
            // Counted in, so images in flight share the cores instead of each taking them all.
            try ParallelLoop.rendering {
                try pipeline.render(reader, decodesWhole: reader.header.decodesWhole, shrunkFrom: reader.header.shrunkFrom,
                                    on: backend, into: sink,
                                    progress: progress)
            }
            return try reader.finish()
        }
        do {
            return try attempt(reader, on: backend)
        } catch let error as ComputeError {
            guard backend.kind == .vulkan else { throw error }
            guard allowFallback else { throw RenderStop(reason: "\(backend.label): \(error)") }
            let (cpu, switched) = current.withLock { active -> (any PassBackend, Bool) in
                if active.kind == .vulkan {
                    active = fallback()
                    return (active, true)
                }
                return (active, false)
            }
            if switched {
                warn("the Vulkan path failed (\(error)); continuing on the CPU")
            }
            // Read again from the start: what the first reader holds (a progressive JPEG's coefficients, admitted
            // once by the budget) is given back first, not held beside the second's.
            reader.abandon()
            return try attempt(reopen(), on: cpu)
        }
    }

    private static func source(_ header: ImageHeader) -> RenderSchedule.Source {
        RenderSchedule.Source(width: header.width, height: header.height, depth: header.depth,
                              decodesWhole: header.decodesWhole)
    }
}

/// Thrown when the required GPU fails: the job stops, resumable, rather than
/// quietly continuing somewhere the user did not ask for.
public struct RenderStop: Error, CustomStringConvertible {
    /// What failed.
    public let reason: String
    public var description: String { "the required GPU failed: \(reason)" }
}
