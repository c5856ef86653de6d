internal import ImageCore

/// The last pass of a graph when it only copies pixels of the image before it and reads that image backwards (a
/// quarter turn or a vertical flip after a resize: a phone portrait's thumbnail, its EXIF orientation applied after
/// the shrink), run on that image's packed rows: the strips render the graph without it into a buffer of packed
/// rows (4 bytes a pixel at 8 bits), which the copy then reads. Strip execution held that image whole as floats
/// (16 bytes a pixel) for the copy. The bytes are the same: packing works pixel by pixel (``PackKernel``), so
/// packing the copied pixels and copying the packed ones agree. A graph that is only such a copy of the source (a
/// turn or flip v, a crop with it) copies the source's stored rows, read whole as before: strip execution unpacked
/// rectangles of them into floats, copied those a pixel at a time and packed them again (a 24 MP JPEG turned by a
/// quarter took 2.3 × vips' CPU).
///
/// Measured (8 × 4000×3000 EXIF orientation 6 to 1600 wide, 2 jobs, the CPU): see BENCHMARKS.md's turned section.
struct PackedCopy {
    /// The graph without its last pass.
    let rest: PassGraph
    /// Where output pixel (x, y) of the last pass comes from in the rest's result.
    private let copiesFrom: @Sendable (_ x: Int, _ y: Int) -> (x: Int, y: Int)
    /// The last pass's output size.
    let width: Int, height: Int
    /// The size of the image the copy reads: the rest's result (the source, when the rest has no pass).
    private let input: (width: Int, height: Int)

    /// The split of `graph` over a source of `source`'s size when its last pass is a copy reading backwards the
    /// output of the pass before it, or the source when it is the only pass; nil otherwise (a copy reading forwards
    /// holds a window of rows, not the image; any other pass computes, and packing its input would round what it
    /// reads).
    init?(_ graph: PassGraph, source: (width: Int, height: Int)) {
        guard let last = graph.passes.last, let copiesFrom = last.copiesFrom, !last.inputs[0].isForward else { return nil }
        switch last.inputs[0].image {
        case .pass(let index) where index == graph.passes.count - 2:
            input = (graph.passes[index].width, graph.passes[index].height)
        case .source where graph.passes.count == 1:
            input = source
        default:
            return nil
        }
        rest = PassGraph(constants: graph.constants, passes: graph.passes.dropLast())
        self.copiesFrom = copiesFrom
        width = last.width
        height = last.height
    }

    /// Whether the copy reads the source itself (the graph had no other pass).
    var readsSource: Bool { rest.passes.isEmpty }

    /// The bytes of the packed rows held, at `depth`.
    func heldBytes(depth: PixelBuffer.Depth) -> Int {
        input.width * input.height * 4 * depth.bytesPerSample
    }

    /// A sink for the rest's packed rows, at `depth`.
    func buffer(depth: PixelBuffer.Depth) -> PixelBufferSink {
        PixelBufferSink(width: input.width, height: input.height, depth: depth)
    }

    /// Copies the pixels of `image` (the rest's packed result) into `sink`, `rows` rows at a time, telling `progress`
    /// the fraction of the rows written after each.
    /// - Throws: the sink's errors.
    func write(_ image: PixelBuffer, into sink: any RowSink, rows: Int, progress: (Double) -> Void) throws {
        precondition(sink.width == width && sink.height == height && sink.depth == image.depth,
                     "sink does not match the copy")
        let (from, copiesFrom, stride) = (image.width, copiesFrom, max(1, rows))
        try image.bytes.withUnsafeBytes { bytes in
            for top in Swift.stride(from: 0, to: height, by: stride) {
                let strip = top..<min(top + stride, height)
                try sink.write(strip) { destination in
                    switch image.depth {
                    case .eight: Self.copy(bytes, as: UInt32.self, width: from, rows: strip, outputWidth: width,
                                           into: destination, copiesFrom)
                    case .sixteen: Self.copy(bytes, as: UInt64.self, width: from, rows: strip, outputWidth: width,
                                             into: destination, copiesFrom)
                    }
                }
                progress(Double(strip.upperBound) / Double(height))
            }
        }
    }

    /// Output rows `rows` of pixels of type `Pixel` (one pixel's four samples) copied from `source`, `width` wide:
    /// a row's pixels from evenly spaced ones (the map is affine, ``RenderPass/copiesFrom``), found by a step, not a
    /// call each (a call each was 14 % of the turned portraits' time).
    private static func copy<Pixel>(_ source: UnsafeRawBufferPointer, as _: Pixel.Type, width: Int, rows: Range<Int>,
                                    outputWidth: Int, into destination: UnsafeMutableRawPointer,
                                    _ copiesFrom: (Int, Int) -> (x: Int, y: Int)) {
        let size = MemoryLayout<Pixel>.size
        for y in rows {
            let row = destination + (y - rows.lowerBound) * outputWidth * size
            let first = copiesFrom(0, y), second = outputWidth > 1 ? copiesFrom(1, y) : first
            var offset = (first.y * width + first.x) * size
            let step = ((second.y - first.y) * width + second.x - first.x) * size
            for x in 0..<outputWidth {
                row.storeBytes(of: source.loadUnaligned(fromByteOffset: offset, as: Pixel.self), toByteOffset: x * size,
                               as: Pixel.self)
                offset += step
            }
        }
    }
}
