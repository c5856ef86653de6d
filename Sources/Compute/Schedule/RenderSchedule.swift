package import ImageCore

/// Where and how one image's graph runs (Halide's schedule: what is computed
/// is the graph's business, this is where): decided once per image by
/// ``init(graph:source:backend:chunking:)``, then read both by ``run(from:into:progress:)``
/// and by ``estimatedBytes``, so the memory an image is admitted with is the
/// memory its run holds.
///
/// - **Whole on the device**: a backend that runs small graphs in one go
///   (Vulkan: one upload, every pass, one download) gets every graph whose
///   float images fit its ``PassBackend/wholeGraphBytes``.
/// - **Strips** otherwise (SPEC §8, `StripExecutor`): rows pulled a chunk at a
///   time, memory following the width. The source is read whole first, in
///   its stored 8/16-bit form, only when it decodes whole (Adam7) or a pass
///   reads it backwards (rotate, flip v as the first operation). A streamed
///   decoder reads ahead on a thread of its own while a core is spare
///   (``ReadAhead``). A last pass that copies the image before it backwards (a
///   turn after a resize) runs on that image's packed rows (``PackedCopy``).
package struct RenderSchedule: Sendable {
    /// How the graph runs.
    package enum Mode: Sendable, Equatable {
        /// Every pass at once, on the backend, the image uploaded once.
        case whole
        /// A chunk of rows at a time.
        case strips
    }

    /// How the graph runs.
    package let mode: Mode
    /// Whether the source is read whole (in its stored form) before rendering.
    package let readsSourceWhole: Bool
    /// Whether a forward-only source streamed into strips is decoded on a
    /// thread of its own (``ReadAhead``) when a core is spare as the image
    /// starts. Counted in ``estimatedBytes`` whether or not a core is spare.
    ///
    /// On a device too: there the one thread that stages strips also hands the
    /// packed rows to the encoder, and decoding between them left the encoder
    /// and the device waiting. Timed on the H200 (2026-11-27, a build with timers
    /// not kept): `kiln export` of 24 MP with `--blur 8` spent 635 ms from the
    /// first strip to the last, where the CPU path's whole run, decoding read
    /// ahead, took 543–557 ms. In blocks of the CPU's size on a device too: a
    /// streamed source's device strips are 8 MiB of floats (2 MiB of stored rows
    /// at 8 bits), and 4 MiB blocks gave the 400 MPix blur σ 4 on the H200 no
    /// speed for 8 MB more (2.82 s and 171 MB against 2.63–2.69 s and 162 MB).
    package let readsAhead: Bool
    /// Strip height (strips only; the output does not depend on it).
    package let chunking: StripExecutor.Chunking
    /// About the most host bytes the run holds: float strips (a device's windows
    /// only where they are host memory) or images, the source's stored rows, a
    /// device's staging, the source held whole where it is.
    /// A caller that hands ``run(from:into:progress:)`` an image it holds where the
    /// schedule expects a decoder (kiln-bench) holds that image beyond this, and a
    /// device's taller strips for a held source with it.
    package let estimatedBytes: Int

    private let backend: any PassBackend
    private let graph: PassGraph
    /// Strips only: the graph's last pass run on packed rows, where it is a copy that reads backwards.
    private let packedCopy: PackedCopy?

    /// The schedule of `graph` over a source like `source` (its size, depth,
    /// and whether it decodes whole) on `backend`; `mode` forces one (tests
    /// compare both), nil lets the backend's ``PassBackend/wholeGraphBytes`` decide.
    package init(graph: PassGraph, source: Source, backend: any PassBackend,
                 chunking: StripExecutor.Chunking = .standard, mode: Mode? = nil) {
        let graph = backend.prepared(graph)
        self.graph = graph
        self.backend = backend
        self.chunking = chunking
        let stored = source.width * source.height * 4 * source.depth.bytesPerSample
        let floats = Self.floatBytes(graph, source)
        // Whole is one submission: within the backend's bound on one submission's work too.
        let taps = Self.taps(graph)
        let fits = floats.map { $0 <= backend.wholeGraphBytes } ?? false
            && backend.submissionTaps.map { bound in taps.map { $0 <= bound } ?? false } ?? true
        if let floats, (mode ?? (fits ? .whole : .strips)) == .whole {
            self.mode = .whole
            packedCopy = nil
            readsSourceWhole = true
            readsAhead = false
            estimatedBytes = stored + floats
        } else {
            self.mode = .strips
            packedCopy = PackedCopy(graph, source: (source.width, source.height))
            if let packedCopy, packedCopy.readsSource {
                // The source's stored rows, read whole, and nothing else: the copy writes the output's rows from them.
                readsSourceWhole = true
                readsAhead = false
                estimatedBytes = stored
                return
            }
            let strips = packedCopy?.rest ?? graph
            readsSourceWhole = source.decodesWhole || StripExecutor.readsSourceBackwards(strips)
            readsAhead = !readsSourceWhole
            // Device strips (every image read forwards): their chunks, their windows where
            // they are host memory, and their staging, as `StripExecutor` will run them.
            let device = StripExecutor.readsEveryImageForward(strips)
                ? backend.deviceStrips(depth: source.depth, sourceHeld: readsSourceWhole) : nil
            var stripChunking = chunking
            if let device, chunking.rows == nil { stripChunking.bytes = device.chunkBytes }
            stripChunking.taps = backend.submissionTaps
            estimatedBytes = StripExecutor.estimatedBytes(graph: strips, width: source.width, height: source.height,
                                                          depth: source.depth, chunking: stripChunking, device: device)
                + (device?.stagingBytes ?? 0)
                + (packedCopy?.heldBytes(depth: source.depth) ?? 0)
                + (readsSourceWhole ? stored : 0)
                + (readsAhead ? ReadAhead.bytes(width: source.width, height: source.height, depth: source.depth) : 0)
        }
    }

    /// What the schedule needs to know of a source before reading it.
    package struct Source: Sendable {
        package var width: Int
        package var height: Int
        package var depth: PixelBuffer.Depth
        /// Rows exist only once the whole image is decoded (Adam7).
        package var decodesWhole: Bool

        /// A source of `width × height` at `depth`.
        package init(width: Int, height: Int, depth: PixelBuffer.Depth, decodesWhole: Bool = false) {
            self.width = width
            self.height = height
            self.depth = depth
            self.decodesWhole = decodesWhole
        }
    }

    /// Runs the graph over `source` (of the size the schedule was made for),
    /// handing the packed output rows to `sink`; `progress` hears the fraction
    /// of the work done as chunks are computed (``StripExecutor/render(into:progress:)``).
    /// - Throws: the source's errors, the backend's `ComputeError`s, the sink's errors.
    package func run(from source: any RowSource, into sink: any RowSink, progress: (Double) -> Void = { _ in }) throws {
        guard let packedCopy else { return try execute(graph, from: source, into: sink, progress: progress) }
        let rows = chunking.rows ?? chunking.bytes / (packedCopy.width * MemoryLayout<SIMD4<Float>>.stride)
        guard !packedCopy.readsSource else {
            return try packedCopy.write(source as? PixelBuffer ?? source.readAll(), into: sink, rows: rows, progress: progress)
        }
        // The rest's share of the work by its taps, then the copy's.
        let share = Self.taps(packedCopy.rest).flatMap { rest in Self.taps(graph).map { Double(rest) / Double(max(1, $0)) } } ?? 1
        let buffer = packedCopy.buffer(depth: source.depth)
        try execute(packedCopy.rest, from: source, into: buffer) { progress($0 * share) }
        try packedCopy.write(buffer.takeImage(), into: sink, rows: rows) { progress(share + $0 * (1 - share)) }
    }

    /// Runs `graph` (this schedule's, or the rest of it before a ``PackedCopy``) as the schedule says, whole or in strips.
    private func execute(_ graph: PassGraph, from source: any RowSource, into sink: any RowSink,
                           progress: (Double) -> Void) throws {
        guard readsSourceWhole else {
            guard readsAhead, !(source is any RandomAccessRowSource), ParallelLoop.hasSpareCore else {
                return try StripExecutor(graph: graph, source: source, backend: backend, chunking: chunking)
                    .render(into: sink, progress: progress)
            }
            let ahead = ReadAhead.start(source)
            do {
                try StripExecutor(graph: graph, source: ahead, backend: backend, chunking: chunking)
                    .render(into: sink, progress: progress)
            } catch {
                try? ahead.stop()
                throw error
            }
            return try ahead.stop()
        }
        // In its stored 8/16-bit form: what a rotation reads rectangles of, or what goes up to the device.
        let image = try source as? PixelBuffer ?? source.readAll()
        switch mode {
        case .whole:
            try sink.write(backend.renderWhole(image, graph: graph))
            progress(1)
        case .strips:
            try StripExecutor(graph: graph, source: image, backend: backend, chunking: chunking)
                .render(into: sink, progress: progress)
        }
    }

    /// The work of every pass of the graph, in taps (``RenderPass/tapsPerPixel``; nil on overflow).
    static func taps(_ graph: PassGraph) -> Int? {
        var total = 0
        for pass in graph.passes {
            let (pixels, over) = pass.width.multipliedReportingOverflow(by: pass.height)
            let (taps, overTaps) = pixels.multipliedReportingOverflow(by: pass.tapsPerPixel)
            let (sum, overSum) = total.addingReportingOverflow(taps)
            guard !over, !overTaps, !overSum else { return nil }
            total = sum
        }
        return total
    }

    /// The float bytes of every image of the graph at once (nil on overflow).
    private static func floatBytes(_ graph: PassGraph, _ source: Source) -> Int? {
        var pixels = source.width * source.height
        for index in graph.passes.indices {
            let size = graph.size(of: .pass(index), source: (source.width, source.height))
            pixels += size.width * size.height
        }
        let (bytes, overflow) = pixels.multipliedReportingOverflow(by: MemoryLayout<SIMD4<Float>>.stride)
        return overflow ? nil : bytes
    }
}
