package import ImageCore

/// Runs a `PassGraph` over a `RowSource` in strips of rows (SPEC §8; libvips'
/// demand-driven regions). The result is pulled a strip at a time; each image
/// of the graph keeps, in a window (`RowWindow`; where it lives is the
/// `StripPlace`'s business), only the rows its consumers still need, computes
/// new rows a chunk at a time, and asks its inputs for exactly the rows that
/// chunk reads (the pass's footprint). Float buffers follow the
/// width and the operations' windows, never the area — except for an
/// intermediate image read backwards (a rotation or flip v after an operation
/// other than a crop, rotation or flip, which compose with it into one pass),
/// which is held whole; where that rotation is the last pass (a turn after a
/// resize), the schedule runs it on packed rows instead (``PackedCopy``).
///
/// Every output pixel is computed from the same inputs in the same order
/// whatever the chunk size, so the result does not depend on it.
package final class StripExecutor {
    /// How large a chunk of rows is.
    package struct Chunking: Sendable {
        /// Float bytes a chunk of one image aims at (its input windows included).
        package var bytes: Int
        /// A fixed number of rows per chunk instead (tests: 1, 7, 64, …).
        package var rows: Int?
        /// The most taps a chunk of a pass carries (``PassBackend/submissionTaps``), or nil: a chunk of a costly
        /// pass is then lower than its bytes would make it (down to a row).
        package var taps: Int?

        /// The default: 4 MiB. On W1 fit to 1920 with 2 jobs (2026-11-27, the kernels' loops in
        /// CKernels) as fast as 8 MiB or faster (2.81–2.89 s against 3.01–3.06) with a peak RSS
        /// of 81–83 MB against 115; 2 MiB: 70 MB, no faster. (8 MiB had been the fastest of
        /// 1–32 MiB with the Swift loops; smaller chunks wake the threads more often.) A pass
        /// may ask for taller chunks (``RenderPass/minimumChunkRows``).
        package static let standard = Chunking(bytes: 4 << 20, rows: nil)
        /// Chunks of exactly `rows` rows.
        package static func rows(_ rows: Int) -> Chunking { Chunking(bytes: standard.bytes, rows: max(1, rows)) }

        /// Chunks of `bytes`, or of `rows`, and at most `taps` a chunk of a pass.
        package init(bytes: Int, rows: Int?, taps: Int? = nil) {
            self.bytes = bytes
            self.rows = rows
            self.taps = taps
        }
    }

    private let graph: PassGraph
    private let source: any RowSource
    private let chunking: Chunking
    /// Where the windows live and the passes run.
    private let place: any StripPlace
    /// Node 0 is the source, node i + 1 the output of pass i.
    private let stores: [any RowWindow]
    private let sizes: [(width: Int, height: Int)]
    /// Nodes held whole, computed at once: read backwards by a consumer.
    private let wholeNodes: Set<Int>
    /// Per node, the first row each consumer still needs (its last request's start).
    private var lowWater: [[Int]]
    /// Per pass, per input: which `lowWater` entry of the input node is its.
    private let consumerSlots: [[Int]]
    private let constants: [any RowWindow]
    /// The source when a pass reads it backwards: then it is read through footprint
    /// rectangles (random access), not stored.
    private let rectangleSource: (any RandomAccessRowSource)?
    /// The work of every pass in taps (``RenderPass/tapsPerPixel``), and the part done: the progress.
    private let totalTaps: Double
    private var doneTaps = 0.0
    /// Hears the progress as chunks are computed (``render(into:progress:)``'s).
    private var heard: (Double) -> Void = { _ in }

    /// Whether the graph reads its source backwards (rotate, flip v first):
    /// then the source must be random-access (a decoded buffer, SPEC §8's
    /// exception), since a decoder only goes forward.
    package static func readsSourceBackwards(_ graph: PassGraph) -> Bool {
        graph.passes.contains { pass in pass.inputs.contains { $0.image == .source && !$0.isForward } }
    }

    /// Whether every image of `graph` is read forwards (constants aside): only then may its
    /// windows live in a device's memory (``PassBackend/devicePlace(for:depth:sourceHeld:)``).
    package static func readsEveryImageForward(_ graph: PassGraph) -> Bool {
        graph.passes.allSatisfy { pass in pass.inputs.allSatisfy { input in
            if case .constant = input.image { return true }
            return input.isForward
        } }
    }

    /// An executor of `graph` over `source` (of the size the graph was built for) on `backend`.
    package init(graph: PassGraph, source: any RowSource, backend: any PassBackend, chunking: Chunking = .standard) {
        precondition(source is any RandomAccessRowSource || !Self.readsSourceBackwards(graph),
                     "a forward-only source read backwards")
        self.graph = graph
        self.source = source
        var chunking = chunking
        let sourceSize = (width: source.width, height: source.height)
        var sizes = [sourceSize]
        for pass in graph.passes { sizes.append((pass.width, pass.height)) }
        self.sizes = sizes
        var lowWater = [[Int]](repeating: [], count: sizes.count)
        var slots: [[Int]] = []
        var whole = Set<Int>()
        var byRectangle = false
        for pass in graph.passes {
            var passSlots: [Int] = []
            for input in pass.inputs {
                guard let node = Self.node(of: input.image) else {
                    passSlots.append(-1)
                    continue
                }
                if !input.isForward {
                    if node == 0 { byRectangle = true } else { whole.insert(node) }
                }
                passSlots.append(lowWater[node].count)
                // No request of this consumer starts above its footprint of row 0: rows
                // above every consumer's mark are never computed (e.g. above a crop).
                let first = input.footprint(PixelRect(x: 0, y: 0, width: pass.width, height: 1))
                lowWater[node].append(input.isForward ? min(max(0, first.y), sizes[node].height) : 0)
            }
            slots.append(passSlots)
        }
        // The caller of `render` reads the result.
        lowWater[Self.node(of: graph.result)!].append(0)
        self.lowWater = lowWater
        consumerSlots = slots
        wholeNodes = whole
        rectangleSource = byRectangle ? source as? any RandomAccessRowSource : nil
        // Only windows that slide forward live on a device; an image held whole or read by rectangle stays on the host.
        let device = Self.readsEveryImageForward(graph)
            ? backend.devicePlace(for: graph, depth: source.depth, sourceHeld: source is any RandomAccessRowSource) : nil
        let place = device ?? HostStrips(backend: backend, depth: source.depth)
        self.place = place
        if let bytes = place.chunkBytes, chunking.rows == nil { chunking.bytes = bytes }
        chunking.taps = place.submissionTaps
        self.chunking = chunking
        // The work of every pass, for the progress (``render(into:progress:)``).
        totalTaps = graph.passes.reduce(0.0) { $0 + Double($1.width) * Double($1.height) * Double($1.tapsPerPixel) }
        stores = sizes.map { place.window(width: $0.width) }
        // Each window's room for the rows it will hold, made once: one grown a chunk at a time held its old storage
        // and its new together as it moved (the 10000² blur σ 50, its source window 700 rows of 160 KB, peaked at
        // 170 MB under --memory 138M; σ 100 at 262 MB under 184M).
        for (node, rows) in Self.heldRows(graph: graph, sizes: sizes, chunking: chunking).enumerated()
        where !whole.contains(node) && !(node == 0 && byRectangle) {
            stores[node].reserve(rows: min(rows, sizes[node].height))
        }
        constants = graph.constants.map { place.constant($0) }
    }

    private static func node(of image: ImageRef) -> Int? {
        switch image {
        case .source: 0
        case .pass(let index): index + 1
        case .constant: nil
        }
    }

    /// Renders the whole image, packs it at the source's depth and hands the
    /// rows to `sink` strip by strip; `progress` hears the fraction of the graph's
    /// work done (every pass's pixels by their taps) as each chunk of a pass is
    /// computed (on a device, recorded: at most the strips in flight ahead), or,
    /// with no pass, of the output rows the sink has had. A chunk, not a strip: a
    /// strip's first rows of a strong blur read a radius of rows above and below,
    /// which took the first strip of a blur σ 1000 tens of seconds before its
    /// progress said anything.
    /// - Throws: the source's errors, the backend's `ComputeError`s, the sink's errors.
    package func render(into sink: any RowSink, progress: (Double) -> Void = { _ in }) throws {
        try withoutActuallyEscaping(progress) { progress in
            heard = progress
            defer { heard = { _ in } }
            try renderStrips(into: sink)
        }
        progress(1)
    }

    private func renderStrips(into sink: any RowSink) throws {
        let result = Self.node(of: graph.result)!
        let (width, height) = sizes[result]
        precondition(sink.width == width && sink.height == height && sink.depth == source.depth, "sink does not match the graph")
        var chunk = chunkRows(result)
        if let budget = place.storedBytesPerStrip, !graph.passes.isEmpty {
            // Source rows per output row (a shrink reads many), each stored at the source's width.
            let sourceRows = max(1, Double(sizes[0].height) / Double(height))
            let rowBytes = Double(sizes[0].width * 4 * source.depth.bytesPerSample)
            chunk = max(1, min(chunk, Int(Double(budget) / (sourceRows * rowBytes))))
        }
        for top in stride(from: 0, to: height, by: chunk) {
            let strip = top..<min(top + chunk, height)
            if graph.passes.isEmpty {
                // No passes: pack(unpack(x)) is x exactly (the kernels' contract), so rows go straight through.
                try sink.write(strip) { try source.read(strip, into: $0) }
                heard(Double(strip.upperBound) / Double(height))
            } else {
                lowWater[result][lowWater[result].count - 1] = strip.lowerBound
                try hold(result, strip)
                _ = try place.emit(strip, of: stores[result], into: sink)
            }
        }
        try place.finish(into: sink)
    }

    private func chunkRows(_ node: Int) -> Int {
        Self.chunkRows(node, graph: graph, sizes: sizes, chunking: chunking)
    }

    /// Rows per chunk of `node`: `chunking.bytes` of its own rows, fewer while
    /// the rows its inputs must hold for one chunk exceed twice that (a strong
    /// shrink reads many input rows per output row).
    private static func chunkRows(_ node: Int, graph: PassGraph, sizes: [(width: Int, height: Int)],
                                  chunking: Chunking) -> Int {
        if let rows = chunking.rows { return rows }
        let rowBytes = sizes[node].width * MemoryLayout<SIMD4<Float>>.stride
        var rows = max(1, chunking.bytes / rowBytes)
        guard node > 0 else { return rows }
        // A pass that needs taller chunks gets them, up to 4 × the chunk's bytes.
        let least = min(graph.passes[node - 1].minimumChunkRows, max(1, 4 * chunking.bytes / rowBytes))
        rows = max(rows, least)
        func inputBytes(_ rows: Int) -> Int {
            inputRows(of: node, chunk: rows, graph: graph, sizes: sizes)
                .map { $0.rows * sizes[$0.node].width * MemoryLayout<SIMD4<Float>>.stride }.max() ?? 0
        }
        while rows > least, inputBytes(rows) > 2 * chunking.bytes { rows = max(least, rows / 2) }
        // At most the taps one submission carries (a device's bound), whatever the pass asked for.
        if let taps = chunking.taps {
            let pass = graph.passes[node - 1]
            rows = min(rows, max(1, taps / max(1, pass.width * pass.tapsPerPixel)))
        }
        return rows
    }

    /// The rows each input node of pass node `node` holds for one chunk of `chunk` rows (mid-image).
    private static func inputRows(of node: Int, chunk: Int, graph: PassGraph,
                                  sizes: [(width: Int, height: Int)]) -> [(node: Int, rows: Int)] {
        let rows = min(chunk, sizes[node].height)
        let rect = PixelRect(x: 0, y: (sizes[node].height - rows) / 2, width: sizes[node].width, height: rows)
        return graph.passes[node - 1].inputs.compactMap { input in
            guard let inputNode = Self.node(of: input.image) else { return nil }
            return (inputNode, min(input.footprint(rect).height, sizes[inputNode].height))
        }
    }

    /// About the most float (and stored source) bytes of host memory an executor of
    /// `graph` over a `width × height` source holds at once: per image, its chunk plus
    /// the rows its consumers' chunks read; images held whole count whole. On a device
    /// (`device` not nil) the stored rows go to its staging, counted by the caller, and the
    /// windows count only where `device` says they are host memory.
    package static func estimatedBytes(graph: PassGraph, width: Int, height: Int, depth: PixelBuffer.Depth,
                                       chunking: Chunking = .standard, device: DeviceStripLayout? = nil) -> Int {
        var sizes = [(width: width, height: height)]
        for pass in graph.passes { sizes.append((pass.width, pass.height)) }
        var held = heldRows(graph: graph, sizes: sizes, chunking: chunking)
        let pixel = MemoryLayout<SIMD4<Float>>.stride
        var rectangles = 0
        for (index, pass) in graph.passes.enumerated() {
            for input in pass.inputs where !input.isForward {
                guard let node = node(of: input.image) else { continue }
                if node > 0 {
                    held[node] = sizes[node].height
                } else {
                    // A source read backwards: one chunk's footprint at a time (a chunk of columns by every row for a
                    // quarter turn, a chunk of rows for a flip). Before, a chunk's rows times the longer side: a
                    // chunk of a narrow image is most of its rows, and a flip of 3 × 10001 was said to need 13 GB.
                    held[0] = 0
                    let rows = min(chunkRows(index + 1, graph: graph, sizes: sizes, chunking: chunking), pass.height)
                    let rect = PixelRect(x: 0, y: (pass.height - rows) / 2, width: pass.width, height: rows)
                    let footprint = input.footprint(rect).intersection(PixelRect(width: width, height: height))
                    rectangles = max(rectangles, footprint.width * footprint.height * pixel)
                }
            }
        }
        let floats = device?.windowsInHostMemory == false ? 0
            : zip(held, sizes).reduce(0) { $0 + min($1.0, $1.1.height) * $1.1.width * pixel }
        let stored = device != nil ? 0
            : chunkRows(0, graph: graph, sizes: sizes, chunking: chunking) * width * 4 * depth.bytesPerSample
        let constants = graph.constants.reduce(0) { $0 + $1.pixels.count * pixel }
        return floats + stored + constants + rectangles
    }

    /// The rows each node's window holds at most as its consumers read it forwards (mid-image): its own chunk (two for
    /// the result, which the sink is handed from) and, for each consumer, the rows one chunk of it reads.
    private static func heldRows(graph: PassGraph, sizes: [(width: Int, height: Int)], chunking: Chunking) -> [Int] {
        var held = sizes.indices.map { chunkRows($0, graph: graph, sizes: sizes, chunking: chunking) }
        held[node(of: graph.result)!] *= 2
        for node in 1..<max(1, sizes.count) {
            for (input, rows) in inputRows(of: node, chunk: chunkRows(node, graph: graph, sizes: sizes, chunking: chunking),
                                           graph: graph, sizes: sizes) {
                held[input] += rows
            }
        }
        return held
    }

    /// Makes `node`'s window hold at least rows `need`, computing what is missing.
    private func hold(_ node: Int, _ need: Range<Int>) throws {
        let store = stores[node]
        if wholeNodes.contains(node) {
            if store.count == 0 {
                store.reserve(rows: sizes[node].height)
                try compute(node, 0..<sizes[node].height)
            }
            return
        }
        // Every consumer's requests only move down, so no row above the lowest
        // mark will be asked for again; rows below it may be, by another consumer.
        let floor = lowWater[node].min() ?? need.lowerBound
        store.drop(below: floor)
        if store.count == 0 || floor > store.end { store.restart(at: floor) }
        precondition(need.lowerBound >= store.top, "rows \(need) of image \(node) asked for after they were dropped")
        if need.upperBound > store.end { try compute(node, store.end..<need.upperBound) }
    }

    /// Appends rows `rows` to `node`'s store, a chunk at a time.
    private func compute(_ node: Int, _ rows: Range<Int>) throws {
        let chunk = chunkRows(node)
        for top in stride(from: rows.lowerBound, to: rows.upperBound, by: chunk) {
            let part = top..<min(top + chunk, rows.upperBound)
            if node == 0 {
                try place.readSource(part, from: source, into: stores[0])
            } else {
                try run(pass: node - 1, part)
            }
        }
    }

    /// Source pixels `rect` unpacked into a store of their own (a source read backwards).
    private func sourceRectangle(_ rect: PixelRect, of source: any RandomAccessRowSource) -> RowStore {
        let store = RowStore(width: rect.width, depth: source.depth)
        let view = store.append(rect.height)
        let line = UnsafeMutableRawPointer.allocate(byteCount: rect.width * 4 * source.depth.bytesPerSample, alignment: 16)
        defer { line.deallocate() }
        for y in rect.y..<(rect.y + rect.height) {
            source.read(columns: rect.x..<(rect.x + rect.width), of: y, into: line)
            UnpackKernel.run(line, depth: source.depth, count: rect.width, into: view.row(view.top + y - rect.y))
        }
        return store
    }

    /// Runs rows `part` of pass `index`, its inputs' footprints made available first.
    private func run(pass index: Int, _ part: Range<Int>) throws {
        let pass = graph.passes[index]
        let node = index + 1
        let rect = PixelRect(x: 0, y: part.lowerBound, width: pass.width, height: part.count)
        let inputSizes = pass.inputs.map { graph.size(of: $0.image, source: sizes[0]) }
        let footprints = zip(pass.inputs, inputSizes).map { input, size in
            input.footprint(rect).intersection(PixelRect(width: size.width, height: size.height))
        }
        // Every consumer's needs are declared before any input is computed, so
        // computing one input never drops rows another view of this pass reads.
        for (slot, input) in pass.inputs.enumerated() {
            guard let inputNode = Self.node(of: input.image), !footprints[slot].isEmpty else { continue }
            lowWater[inputNode][consumerSlots[index][slot]] = footprints[slot].y
        }
        var rectangles: [RowStore] = []
        for (slot, input) in pass.inputs.enumerated() {
            guard let inputNode = Self.node(of: input.image), !footprints[slot].isEmpty else { continue }
            if inputNode == 0 && rectangleSource != nil { continue }
            try hold(inputNode, footprints[slot].y..<(footprints[slot].y + footprints[slot].height))
        }
        let inputs = pass.inputs.enumerated().map { slot, input -> StripInput in
            let footprint = footprints[slot]
            switch input.image {
            case .constant(let index):
                return .window(constants[index])
            case .source where rectangleSource != nil && !footprint.isEmpty:
                let store = sourceRectangle(footprint, of: rectangleSource!)
                rectangles.append(store)
                let view = store.view
                return .rectangle(FloatRows(base: view.base, width: view.width, left: footprint.x, top: footprint.y,
                                            height: footprint.height, depth: view.depth))
            default:
                return .window(stores[Self.node(of: input.image)!])
            }
        }
        try place.run(pass, rows: part, inputs: inputs, footprints: footprints, sizes: inputSizes, output: stores[node])
        withExtendedLifetime(rectangles) {}
        doneTaps += Double(part.count) * Double(pass.width) * Double(pass.tapsPerPixel)
        heard(min(1, doneTaps / totalTaps))
    }
}
