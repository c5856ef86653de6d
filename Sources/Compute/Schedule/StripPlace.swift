package import ImageCore

/// The rows of one image of a graph that strip execution holds: a window that
/// slides down the image (``StripExecutor`` decides which rows; the
/// ``StripPlace`` that made it decides where they live).
package protocol RowWindow: AnyObject {
    /// The first row held.
    var top: Int { get }
    /// Rows held.
    var count: Int { get }
    /// Forgets the rows above `row`.
    func drop(below row: Int)
    /// Forgets every row; the next appended row is `row`.
    func restart(at row: Int)
    /// Makes room for `rows` rows in all before they are appended (an image held
    /// whole), so the window is allocated once instead of growing by copies.
    func reserve(rows: Int)
}

extension RowWindow {
    /// One past the last row held.
    package var end: Int { top + count }
}

/// One input of a pass as strip execution hands it to a ``StripPlace``.
package enum StripInput {
    /// The window of an image of the graph (or of a constant), holding at least the footprint.
    case window(any RowWindow)
    /// Source pixels read by rectangle (a source read backwards): host memory only.
    case rectangle(FloatRows)
}

/// Where strip execution keeps its windows of float rows and runs passes
/// over them (Halide's "where", for strips): in host memory, a pass at a time
/// through ``PassBackend/run(_:inputs:sizes:output:)`` (``HostStrips``), or in
/// a device's own memory with every pass of a strip recorded together (the
/// Vulkan backend's). ``StripExecutor`` decides *which* rows are computed and
/// when; a place decides where they live and how they get there.
///
/// A place serves one image, from one thread.
package protocol StripPlace: AnyObject {
    /// About the most stored source bytes one output strip should read, or nil
    /// for no bound: a place that stages a strip's source rows at once (a
    /// device) bounds them, so a strong shrink gets more, lower strips rather
    /// than a staging area the height of the source.
    var storedBytesPerStrip: Int? { get }
    /// Float bytes a chunk aims at on this place, in place of the schedule's
    /// standard chunking (nil: the standard).
    var chunkBytes: Int? { get }
    /// The most taps a chunk of a pass carries here (``PassBackend/submissionTaps``), nil for no bound.
    var submissionTaps: Int? { get }
    /// An empty window for an image `width` pixels wide.
    func window(width: Int) -> any RowWindow
    /// A window holding every row of `image` (a constant input, e.g. a watermark).
    func constant(_ image: FloatImage) -> any RowWindow
    /// Reads source rows `rows` from `source` and appends them, as floats, to `window`.
    /// - Throws: the source's errors, `ComputeError`.
    func readSource(_ rows: Range<Int>, from source: any RowSource, into window: any RowWindow) throws
    /// Appends rows `rows` of `pass` to `output`, reading `inputs`, each holding
    /// at least the footprint in `footprints` (empty: the input is not read);
    /// the inputs are images of `sizes`.
    /// - Throws: `ComputeError`.
    func run(_ pass: RenderPass, rows: Range<Int>, inputs: [StripInput], footprints: [PixelRect],
             sizes: [(width: Int, height: Int)], output: any RowWindow) throws
    /// Packs rows `strip` of `window` at the source's depth and hands them to
    /// `sink`, now or once work in flight is done; returns how many rows the
    /// sink has had so far (from the top, in order).
    /// - Throws: `ComputeError`, the sink's errors.
    func emit(_ strip: Range<Int>, of window: any RowWindow, into sink: any RowSink) throws -> Int
    /// Hands `sink` every row emitted and not yet handed.
    /// - Throws: `ComputeError`, the sink's errors.
    func finish(into sink: any RowSink) throws
}

/// Strips in host memory: every window a `RowStore`, every pass run by the
/// backend a chunk at a time (the CPU's kernels; a device's upload, dispatch
/// and download per pass), every strip packed and written at once.
package final class HostStrips: StripPlace {
    private let backend: any PassBackend
    private let depth: PixelBuffer.Depth
    /// Each pass's CPU kernel for this run (``RenderPass/cpuRun``), by its output window.
    private var kernels: [ObjectIdentifier: RenderPass.CPUKernel] = [:]
    /// Stored rows read from the source before unpacking, reused.
    private var stored: UnsafeMutableRawPointer?
    private var storedBytes = 0

    /// A place running passes on `backend`, for a source of `depth`.
    package init(backend: any PassBackend, depth: PixelBuffer.Depth) {
        self.backend = backend
        self.depth = depth
    }

    deinit { stored?.deallocate() }

    /// Source rows are read a chunk at a time into one reused buffer: no bound needed.
    package var storedBytesPerStrip: Int? { nil }
    package var chunkBytes: Int? { nil }
    /// The backend's: on a device, a pass at a time through host memory is a submission a chunk.
    package var submissionTaps: Int? { backend.submissionTaps }

    package func window(width: Int) -> any RowWindow {
        RowStore(width: width, depth: depth)
    }

    package func constant(_ image: FloatImage) -> any RowWindow {
        let store = RowStore(width: image.width, depth: image.depth)
        store.reserve(rows: image.height)
        let view = store.append(image.height)
        image.pixels.withUnsafeBufferPointer { view.base.update(from: $0.baseAddress!, count: $0.count) }
        return store
    }

    package func readSource(_ rows: Range<Int>, from source: any RowSource, into window: any RowWindow) throws {
        let store = Self.store(window)
        let (width, depth) = (source.width, source.depth)
        var opaque = true
        if let ahead = source as? ReadAhead {
            // Unpacked from the blocks read ahead, where they lie (copying them out first was
            // 5 % of the 16000×9000 photo's fit to 1920).
            let view = store.append(rows.count)
            try ahead.visit(rows) { piece, samples in
                let into = view.row(piece.lowerBound)
                opaque = UnpackKernel.run(samples, depth: depth, count: piece.count * width, into: into) && opaque
            }
        } else {
            let bytes = rows.count * width * 4 * depth.bytesPerSample
            if bytes > storedBytes {
                stored?.deallocate()
                stored = .allocate(byteCount: bytes, alignment: 16)
                storedBytes = bytes
            }
            try source.read(rows, into: stored!)
            let view = store.append(rows.count)
            opaque = UnpackKernel.run(stored!, depth: depth, count: rows.count * width, into: view.base)
        }
        if opaque { store.appendedOpaque() }
    }

    package func run(_ pass: RenderPass, rows: Range<Int>, inputs: [StripInput], footprints: [PixelRect],
                     sizes: [(width: Int, height: Int)], output: any RowWindow) throws {
        let views = zip(inputs, footprints).map { input, footprint -> FloatRows in
            switch input {
            case .rectangle(let view):
                return view
            case .window(let window):
                let view = Self.store(window).view
                // An input this chunk does not read: an empty view at its footprint.
                return footprint.isEmpty
                    ? FloatRows(base: view.base, width: view.width, top: footprint.y, height: 0, depth: view.depth) : view
            }
        }
        // Each pass's output window is its own, so it names the pass in this run.
        let key = ObjectIdentifier(Self.store(output))
        let cpu = kernels[key] ?? pass.cpuKernelForRun()
        kernels[key] = cpu
        try backend.run(pass, cpu: cpu, inputs: views, sizes: sizes, output: Self.store(output).append(rows.count))
    }

    package func emit(_ strip: Range<Int>, of window: any RowWindow, into sink: any RowSink) throws -> Int {
        let view = Self.store(window).view
        let depth = self.depth
        try sink.write(strip) { PackKernel.run(view.row(strip.lowerBound), count: strip.count * view.width, depth: depth, into: $0) }
        return strip.upperBound
    }

    package func finish(into sink: any RowSink) throws {}

    /// The host store behind `window` (every window of this place is one).
    static func store(_ window: any RowWindow) -> RowStore {
        guard let store = window as? RowStore else { preconditionFailure("a window of another place") }
        return store
    }
}
