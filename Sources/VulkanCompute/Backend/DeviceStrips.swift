internal import Compute
internal import CVulkan
internal import ImageCore

/// Strip execution with every window on the device (the Vulkan backend's
/// ``StripPlace``): a strip's source rows go up once, in their stored
/// 8/16-bit form, and are unpacked there; every pass of the strip reads and
/// writes windows in device-local memory (the rows each pass still needs, as
/// the CPU's `RowStore`s keep them); only the packed output rows come down.
/// One command buffer per strip records it all, with a barrier between
/// dependent steps.
///
/// Two strips are in flight: strip n is submitted, then the host delivers
/// strip n − 1's rows to the sink (the encoder) and reads and stages strip
/// n + 1's source rows while the device computes n. Each strip has its own
/// `RenderSlot` (command buffer, fence, descriptor pool, persistently mapped
/// staging); the windows are shared, and each command buffer begins with a
/// barrier that orders it after the one before on the queue. On a device
/// whose memory is all the host's (lavapipe, integrated GPUs) the shaders
/// read and write staging directly; elsewhere the strip's stored rows are
/// copied into device memory and the packed rows back.
///
/// Measured on lavapipe (blur σ 4 + sharpen + resize to 1920 of the
/// 16000×9000 photo): 584 MB across the boundary, exactly the stored source
/// and output, in one submission a strip (155 strips of 4 MiB of stored rows);
/// a pass at a time through host memory moved 3,315 MB (5.7 ×) in 351
/// submissions (BENCHMARKS.md, "GPU" and "Lavapipe").
///
/// Two strips in flight, not more: on the H200 (2026-11-27) a ring of 3 or 4
/// frames changed nothing beyond the run-to-run spread (blur σ 8 of 24 MP:
/// 0.078–0.094 s with 2, 3 or 4; the 400 MPix blur σ 4: 1.20–1.57 s with each).
///
/// The host's side is most of a strip's time on a discrete GPU: timed on the
/// H200 (2026-11-27, fifth session, a build with timers not kept), blur σ 8 of
/// 24 MP spent 12 ms reading source rows into staging and 23 ms copying packed
/// rows out to a fresh output, of 39 ms; submitting and waiting took 1.5 ms. So
/// rows are copied on several threads (``ParallelLoop/copy(_:from:to:)``; a held
/// source's rows in parallel), strips are taller where windows are device memory
/// (``chunkBytes``), and windows' device buffers are kept for the next image
/// (``VulkanBackend/windowBuffer(bytes:)``).
final class DeviceStrips: StripPlace {
    private let backend: VulkanBackend
    private let depth: PixelBuffer.Depth
    /// Whether the source's rows are all in memory already (``chunkBytes``).
    private let sourceHeld: Bool
    /// The strip being recorded, then the one in flight.
    private var frames: [Frame] = []
    private var recording = 0
    /// Output rows the sink has had.
    private var delivered = 0
    /// Set once a frame fails: then nothing is kept for the next image.
    private var failed = false
    /// Every window made, whose buffers go back to the backend at the end.
    private var windows: [DeviceWindow] = []

    init(backend: VulkanBackend, depth: PixelBuffer.Depth, sourceHeld: Bool) {
        self.backend = backend
        self.depth = depth
        self.sourceHeld = sourceHeld
    }

    deinit {
        // Buffers may be released only once no submitted work uses them.
        for frame in frames where frame.inFlight {
            // Work whose end is unknown leaves its buffers to be released, never reused.
            do { try frame.slot.sequence.wait() } catch { failed = true }
        }
        if !failed {
            for frame in frames { backend.giveBack(frame.slot) }
            backend.keep(windows.compactMap(\.buffer))
        }
    }

    /// 4 MiB from a source streamed from its decoder (as ``chunkBytes``), 16 MiB from a held
    /// one: a strip's stored rows are read straight into its frame's mapped
    /// staging, which also takes the strip's packed output rows: two frames hold about
    /// ``hostBytes(sharedMemory:sourceHeld:depth:)`` of host memory. Unbounded, the
    /// 16000×9000 photo shrunk to 1920 staged its source in 4 strips of 144 MB each (peak
    /// RSS 849 MB on lavapipe, where a pass at a time through host memory peaked at 243 MB).
    /// The bound binds where a pass shrinks (a chunk of floats, ``chunkBytes``, reads a
    /// quarter of its bytes in stored rows at 8 bits where none does): on the H200
    /// (2026-11-27, sixth session) `kiln export` of 24 MP resized to 1920 peaked at 143 MB
    /// with 16 MiB, 42 MB of it staging, against 51 MB on the CPU. The blur after that
    /// shrink runs on strips of 7 rows of 1920: while `blur_y`'s workgroups were all runs of
    /// 256 rows, each column ran 256 invocations for 7 pixels, and on lavapipe (whose shaders
    /// run on the host's cores) the 16000×9000 photo's blur σ 4 + sharpen + resize to 1920
    /// took 155 strips and 75 s with 4 MiB, so shared memory kept 16 (35 strips, 36–41 s,
    /// 184 MB). With runs of 32 rows for short tiles (`blur_y_short`, seventh session, this
    /// 2-core machine, release builds, one run each): 36.4 s and 145 MB with 4 MiB (155
    /// strips), 31.2 s and 199 MB with 16; the same bytes moved and written. So every device
    /// takes the same bound.
    var storedBytesPerStrip: Int? { Self.storedBytes(sourceHeld: sourceHeld) }

    private static func storedBytes(sourceHeld: Bool) -> Int { sourceHeld ? 16 << 20 : 4 << 20 }

    /// Strips are chunks of floats, each a submission and a fence wait: 8 MiB, and 32 MiB
    /// where the windows are device memory and the source is held (a decoded image). There
    /// the render is all the work, and taller strips render it up to twice as fast at a cost
    /// in staging (two frames of 24 MiB at 8 bits) small beside the image held. A source
    /// streamed from its decoder is an image whose memory follows its width: its strips'
    /// staging stays small, and the decoder and the encoder set the pace, not the strips.
    /// Measured on the H200 (2026-11-27, sixth session, `kiln export`, each strip height with
    /// a temporary build): the 400 MPix blur σ 4 took 2.63–2.69 s with 8 MiB strips and
    /// 2.63–3.37 s with 32 MiB, peaking at 162 and 202–244 MB (the CPU path: 3.55–3.62 s,
    /// 114 MB); blur σ 8 of 24 MP 0.80–0.89 s and 0.79–0.86 s, 165 and 203 MB. With this rule:
    /// 1.98–2.21 s and 162 MB for the former (CPU 3.15–3.26 s, 114–115 MB), and the render
    /// stage of the latter, held, 0.0111 s (CPU 0.156 s). Where windows are the host's
    /// (lavapipe, integrated GPUs) they are RSS, as the CPU's are with its 4 MiB.
    ///
    /// Measured on the H200 (2026-11-27, fifth session, copies on several threads, render stage,
    /// median of 5): blur σ 8 of 24 MP 0.034 s with 8 MiB, 0.025 with 16, 0.022 with 32,
    /// 0.024 with 64; the 400 MPix blur σ 4 0.52–0.57, 0.30–0.33 and 0.21–0.23 s with 8, 16
    /// and 32 (the copies out are larger pieces, more of them side by side); the chain blur →
    /// sharpen → brightness → resize 0.022, 0.024, 0.041 and 0.071 s, its windows' allocation
    /// 5, 9, 18 and 33 ms of it, which kept buffers remove from the second image on. An
    /// earlier lease with copies on one thread found 64 MiB slower than 8 for the chain and
    /// the 400 MPix blur (0.051 → 0.066 s, 1.27 → 1.57 s) and peak RSS 162 → 245 MB (the
    /// stored-bytes budget was then unbounded).
    var chunkBytes: Int? { Self.chunkBytes(sharedMemory: backend.sharedMemory, sourceHeld: sourceHeld) }

    private static func chunkBytes(sharedMemory: Bool, sourceHeld: Bool) -> Int {
        sourceHeld && !sharedMemory ? 32 << 20 : 8 << 20
    }

    /// The backend's bound on one submission's work: a strip whose passes carry more is submitted in parts, each
    /// waited for before the next is recorded (``flush(_:)``), so the job's progress moves between them.
    var submissionTaps: Int? { backend.submissionTaps }

    /// The host memory device strips of rows at `depth` hold besides their windows: two
    /// frames' staging, each of ``stagingBytes(sharedMemory:sourceHeld:depth:)`` and grown once
    /// by half where a strip needs more (the first strip's rows above for a filter, a blur
    /// asking for taller strips, 16-bit rows filling both bounds): on a discrete GPU 18 MiB
    /// at 8 bits from a streamed source, 24 at 16 bits, 72 and 96 MiB from a held one; where
    /// memory is shared the same from a streamed source, 54 and 60 MiB from a held one.
    private static func hostBytes(sharedMemory: Bool, sourceHeld: Bool, depth: PixelBuffer.Depth) -> Int {
        2 * stagingBytes(sharedMemory: sharedMemory, sourceHeld: sourceHeld, depth: depth) * 3 / 2
    }

    /// The layout the schedule counts for strips like these: their chunks, their windows in
    /// host memory where memory is shared, and ``hostBytes(sharedMemory:sourceHeld:depth:)``.
    static func layout(sharedMemory: Bool, sourceHeld: Bool, depth: PixelBuffer.Depth) -> DeviceStripLayout {
        DeviceStripLayout(chunkBytes: chunkBytes(sharedMemory: sharedMemory, sourceHeld: sourceHeld),
                          windowsInHostMemory: sharedMemory,
                          stagingBytes: hostBytes(sharedMemory: sharedMemory, sourceHeld: sourceHeld, depth: depth))
    }

    /// One frame's staging, made at once at its first use: the most stored rows a strip
    /// reads (``storedBytesPerStrip``) and a chunk's packed output rows (a chunk of floats at
    /// `depth`: a quarter of ``chunkBytes`` at 8 bits, half at 16); where a strip needs more,
    /// at least half as much again (`Frame.reserve(_:)`). Grown as the rows came in, the
    /// staging of the 400 MPix blur σ 4 was made 5 times on the H200 (16.6 MB for 9.3 MB
    /// kept), its rows copied into each larger buffer. The slots keep their staging from one
    /// image to the next, so a held image's larger staging stays for the images after it.
    private static func stagingBytes(sharedMemory: Bool, sourceHeld: Bool, depth: PixelBuffer.Depth) -> Int {
        storedBytes(sourceHeld: sourceHeld)
            + chunkBytes(sharedMemory: sharedMemory, sourceHeld: sourceHeld) * depth.bytesPerSample / 4
    }

    // MARK: - Windows

    func window(width: Int) -> any RowWindow {
        let window = DeviceWindow(width: width)
        windows.append(window)
        return window
    }

    func constant(_ image: FloatImage) -> any RowWindow {
        let window = DeviceWindow(width: image.width)
        window.pending = image
        return window
    }

    /// Makes room for `rows` more rows at the end of `window` and returns the
    /// buffer pixel of the first. When the buffer is full the rows still held
    /// move to its start (a recorded copy) where the two places do not
    /// overlap, else to a new buffer with room for twice the rows held and two
    /// more chunks — enough that the next move stays in place. (A spare buffer
    /// to move into, ping-pong, held every window twice: 174 MB of lavapipe's
    /// peak RSS for the 400 MPix blur, where the CPU's whole run peaks at 72 MB.)
    private func append(_ rows: Int, to window: DeviceWindow, in frame: Frame) throws(ComputeError) -> Int {
        let width = window.width
        let alignment = PassTiling.alignment
        if window.buffer == nil || (window.end + rows) * width - window.base > window.capacity {
            let base = window.top * width / alignment * alignment
            let held = window.count * width
            let from = window.top * width - window.base, to = window.top * width - base
            if let buffer = window.buffer, (window.end + rows) * width - base <= window.capacity, from >= to + held {
                if held > 0 {
                    frame.ops.append(.copy(from: buffer, fromOffset: from * pixelBytes, to: buffer, toOffset: to * pixelBytes,
                                           bytes: held * pixelBytes))
                }
            } else {
                let grown = try backend.windowBuffer(bytes: ((2 * window.count + 2 * rows) * width + alignment) * pixelBytes)
                if let old = window.buffer {
                    if held > 0 {
                        frame.ops.append(.copy(from: old, fromOffset: from * pixelBytes, to: grown, toOffset: to * pixelBytes,
                                               bytes: held * pixelBytes))
                    }
                    // Steps recorded (or in flight) may still read it.
                    frame.keepAlive.append(old)
                }
                window.buffer = grown
            }
            window.base = base
        }
        let first = window.end * width - window.base
        window.count += rows
        return first
    }

    /// `window`'s buffer and the image pixel its pixel 0 stands for, a constant's pixels staged on first use.
    private func placed(_ window: DeviceWindow, in frame: Frame) throws(ComputeError) -> (buffer: VulkanBuffer, start: Int) {
        if let image = window.pending {
            window.pending = nil
            let bytes = image.pixels.count * pixelBytes
            let offset = try frame.stage(bytes) { to in image.pixels.withUnsafeBytes { to.copyMemory(from: $0.baseAddress!, byteCount: bytes) } }
            let buffer = try VulkanBuffer(context: backend.context, size: max(bytes, pixelBytes), placement: .deviceLocal)
            frame.ops.append(.constant(uploaded: offset, bytes: bytes, to: buffer))
            window.buffer = buffer
            window.count = image.height
        }
        if window.buffer == nil {
            // Never filled and not read (an empty footprint): a binding still needs a buffer.
            window.buffer = try VulkanBuffer(context: backend.context, size: PassTiling.alignment * pixelBytes, placement: .deviceLocal)
        }
        return (window.buffer!, window.base)
    }

    // MARK: - Recording a strip

    /// Stored bytes per pixel (four samples).
    private var bytesPerPixel: Int { 4 * depth.bytesPerSample }

    /// The parameters of unpack or pack (by `scale`) over `count` pixels from pixel `skip` of their binding.
    private func samples(_ count: Int, skip: Int, scale: Float) -> KernelParameters {
        KernelParameters(pixelCount: UInt32(count), sixteenBit: depth == .sixteen ? 1 : 0, scale: scale, first: UInt32(skip))
    }

    func readSource(_ rows: Range<Int>, from source: any RowSource, into window: any RowWindow) throws {
        let frame = try currentFrame()
        let window = Self.device(window)
        let pixels = rows.count * source.width
        var readError: (any Error)?
        let offset = try frame.stage(pixels * bytesPerPixel) { to in
            if let held = source as? any RandomAccessRowSource {
                // A held image's rows, on several threads (12 → 3.7 ms for blur σ 8 of 24 MP on the H200).
                Self.read(rows, of: held, into: to)
            } else {
                do { try source.read(rows, into: to) } catch { readError = error }
            }
        }
        if let readError { throw readError }
        let first = try append(rows.count, to: window, in: frame)
        for (start, count, binding) in chunks(pixels, at: first, of: window.buffer!) {
            frame.ops.append(.unpack(uploaded: offset + start * bytesPerPixel, bytes: count * bytesPerPixel, into: binding.binding,
                                     samples(count, skip: binding.skip, scale: UnpackKernel.scale(for: depth))))
        }
        frame.ops.append(.barrier)
    }

    func run(_ pass: RenderPass, rows: Range<Int>, inputs: [StripInput], footprints: [PixelRect],
             sizes: [(width: Int, height: Int)], output: any RowWindow) throws {
        let frame = try currentFrame()
        let placedInputs = try inputs.map { input throws(ComputeError) -> (buffer: VulkanBuffer, start: Int) in
            guard case .window(let window) = input else { preconditionFailure("a source read by rectangle on the device") }
            return try placed(Self.device(window), in: frame)
        }
        let output = Self.device(output)
        _ = try append(rows.count, to: output, in: frame)
        var work = VulkanBackend.Work()
        try backend.tiles(of: pass, region: PixelRect(x: 0, y: rows.lowerBound, width: pass.width, height: rows.count),
                          inputSizes: sizes, inputs: placedInputs, output: (output.buffer!, output.base), into: &work)
        frame.ops.append(contentsOf: work.steps.map { .step($0) })
        frame.ops.append(.barrier)
        frame.taps += rows.count * pass.width * pass.tapsPerPixel
        if let bound = backend.submissionTaps, frame.taps >= bound { try flush(frame) }
    }

    /// Submits what `frame` recorded so far and waits for it: a part of a strip whose passes carry more work than
    /// one submission should (``submissionTaps``). Its stored rows stay staged for the steps still to come, and
    /// its windows hold what the part computed; the strip's packed rows go with its last part (``emit(_:of:into:)``).
    private func flush(_ frame: Frame) throws {
        try submit(frame)
        try awaitDone(frame)
        frame.submittedPart()
    }

    /// Waits for `frame`'s submission; a failure leaves nothing to reuse.
    private func awaitDone(_ frame: Frame) throws {
        do {
            try frame.slot.sequence.wait()
        } catch {
            failed = true
            throw error
        }
        frame.inFlight = false
    }

    func emit(_ strip: Range<Int>, of window: any RowWindow, into sink: any RowSink) throws -> Int {
        let frame = try currentFrame()
        let window = Self.device(window)
        let pixels = strip.count * window.width
        let offset = frame.download(strip, bytes: pixels * bytesPerPixel)
        for (start, count, binding) in chunks(pixels, at: strip.lowerBound * window.width - window.base, of: window.buffer!) {
            frame.ops.append(.pack(binding.binding, downloaded: offset + start * bytesPerPixel, bytes: count * bytesPerPixel,
                                   samples(count, skip: binding.skip, scale: PackKernel.scale(for: depth))))
        }
        try submit(frame)
        // While the device computes this strip, hand the one before to the sink and record the next.
        recording = 1 - recording
        if recording < frames.count { try deliver(frames[recording], into: sink) }
        return delivered
    }

    func finish(into sink: any RowSink) throws {
        // The strip submitted last.
        if 1 - recording < frames.count { try deliver(frames[1 - recording], into: sink) }
    }

    /// `pixels` float pixels from buffer pixel `first` on, in pieces one
    /// dispatch can bind: each piece's start in the run, its count, and its
    /// binding (aligned at or before its first pixel, `skip` pixels before it).
    private func chunks(_ pixels: Int, at first: Int, of buffer: VulkanBuffer)
        -> [(start: Int, count: Int, binding: (binding: RenderSlot.Binding, skip: Int))] {
        let alignment = PassTiling.alignment
        // Room for the skip within a binding; a multiple of 64 pixels keeps every piece's
        // stored bytes 256-aligned (the largest minStorageBufferOffsetAlignment allowed).
        let most = max(64, (backend.chunkPixels - alignment) / 64 * 64)
        return stride(from: 0, to: pixels, by: most).map { start in
            let count = min(most, pixels - start)
            let aligned = (first + start) / alignment * alignment
            let skip = first + start - aligned
            return (start, count, (RenderSlot.Binding(buffer: buffer, offset: aligned * pixelBytes, size: (skip + count) * pixelBytes), skip))
        }
    }

    // MARK: - Frames

    /// The frame recording now; its slot is taken on first use.
    private func currentFrame() throws(ComputeError) -> Frame {
        while frames.count <= recording {
            frames.append(Frame(slot: try backend.takeSlot(),
                                stagingBytes: Self.stagingBytes(sharedMemory: backend.sharedMemory, sourceHeld: sourceHeld,
                                                                depth: depth)))
        }
        return frames[recording]
    }

    /// Stages `frame`'s source rows, binds and records its steps, and submits it.
    private func submit(_ frame: Frame) throws(ComputeError) {
        do throws(ComputeError) {
            let slot = frame.slot
            let uploadBytes = Frame.aligned(frame.uploadBytes)
            try frame.reserve(uploadBytes + frame.downloadBytes)
            guard let staging = slot.staging else { throw .setupFailed("staging buffer missing") }
            let shared = backend.sharedMemory
            // Where the shaders find the stored rows and leave the packed ones.
            let samples = shared ? staging : try slot.samples(bytes: uploadBytes + frame.downloadBytes)
            var bindings: [[RenderSlot.Binding]] = []
            for op in frame.ops {
                switch op {
                case .step(.pixels(_, let list, _)), .step(.tile(_, let list, _)): bindings.append(list)
                case .unpack(let offset, let bytes, let into, _):
                    bindings.append([RenderSlot.Binding(buffer: samples, offset: offset, size: bytes), into])
                case .pack(let from, let offset, let bytes, _):
                    bindings.append([from, RenderSlot.Binding(buffer: samples, offset: uploadBytes + offset, size: bytes)])
                case .step(.barrier), .barrier, .copy, .constant: break
                }
            }
            let sets = try slot.makeSets(bindings)
            let unpack = backend.unpack, pack = backend.pack
            try slot.sequence.record { commands in
                // The upload touches only this frame's buffers: recorded before the barrier, it may
                // run while the strip before still computes.
                // Again in each part of a strip submitted in parts whose steps read staged rows: cheap beside
                // the work that made it part, and the sample buffer may have grown since.
                if !shared && frame.uploadBytes > 0 && frame.readsStaging {
                    commands.copy(from: staging, to: samples, size: frame.uploadBytes)
                }
                // After the strip before on the queue, whose windows this one reads and overwrites
                // (and after the upload).
                commands.fullBarrier()
                var nextSet = sets.makeIterator()
                for op in frame.ops {
                    switch op {
                    case .step(.pixels(let kernel, _, let parameters)):
                        commands.dispatch(kernel, set: nextSet.next()!, parameters: parameters)
                    case .step(.tile(let kernel, _, let constants)):
                        commands.dispatch(kernel, set: nextSet.next()!, constants: constants)
                    case .step(.barrier(let source, let destination)):
                        commands.barrier(source, destination)
                    case .unpack(_, _, _, let parameters):
                        commands.dispatch(unpack, set: nextSet.next()!, parameters: parameters)
                    case .pack(_, _, _, let parameters):
                        commands.dispatch(pack, set: nextSet.next()!, parameters: parameters)
                    case .barrier:
                        commands.barrier(.compute, .compute)
                    case .copy(let from, let fromOffset, let to, let toOffset, let bytes):
                        // After every write of the rows it moves, by a dispatch or an earlier move.
                        commands.fullBarrier()
                        commands.copy(from: from, offset: fromOffset, to: to, offset: toOffset, size: bytes)
                        commands.barrier(.transfer, .compute)
                    case .constant(let offset, let bytes, let to):
                        commands.copy(from: samples, offset: offset, to: to, size: bytes)
                        commands.barrier(.transfer, .compute)
                    }
                }
                if shared {
                    commands.barrier(.compute, .host)
                } else if frame.downloadBytes > 0 {
                    commands.barrier(.compute, .transfer)
                    commands.copy(from: samples, offset: uploadBytes, to: staging, offset: uploadBytes, size: frame.downloadBytes)
                    commands.barrier(.transfer, .host)
                }
            }
            try slot.sequence.submit()
            frame.inFlight = true
            backend.count(up: frame.stagedBytes - frame.countedUp, down: frame.downloads.reduce(0) { $0 + $1.bytes })
            frame.countedUp = frame.stagedBytes
        } catch {
            failed = true
            throw error
        }
    }

    /// Waits for `frame` if it is in flight and hands its rows to `sink`; the frame is then free.
    private func deliver(_ frame: Frame, into sink: any RowSink) throws {
        guard frame.inFlight else { return }
        try awaitDone(frame)
        let uploadBytes = Frame.aligned(frame.uploadBytes)
        let mapped = frame.slot.staging!.mapped!
        for download in frame.downloads {
            try sink.write(download.strip) { ParallelLoop.copy(download.bytes, from: mapped + uploadBytes + download.offset, to: $0) }
            delivered = download.strip.upperBound
        }
        frame.reset()
    }

    private var pixelBytes: Int { MemoryLayout<SIMD4<Float>>.size }

    /// Writes rows `rows` of `held` into `destination`, a run of rows on each of several threads.
    private static func read(_ rows: Range<Int>, of held: any RandomAccessRowSource, into destination: UnsafeMutableRawPointer) {
        // Reads of a held image's rows may run side by side (`RandomAccessRowSource`); the
        // pointer travels as an address, which is Sendable.
        nonisolated(unsafe) let held = held
        let width = held.width, first = rows.lowerBound
        let rowBytes = width * 4 * held.depth.bytesPerSample, address = UInt(bitPattern: destination)
        ParallelLoop.forEachChunk(rows.count, itemCost: width) { part in
            for row in part {
                held.read(columns: 0..<width, of: first + row, into: UnsafeMutableRawPointer(bitPattern: address + UInt(row * rowBytes))!)
            }
        }
    }

    private static func device(_ window: any RowWindow) -> DeviceWindow {
        guard let window = window as? DeviceWindow else { preconditionFailure("a window of another place") }
        return window
    }
}

/// One image's window of float rows in a device buffer (``DeviceStrips``).
private final class DeviceWindow: RowWindow {
    let width: Int
    private(set) var top = 0
    var count = 0
    /// The rows, row `top` at buffer pixel `top × width − base`.
    var buffer: VulkanBuffer?
    /// The image pixel that buffer pixel 0 stands for: a multiple of
    /// `PassTiling.alignment`, so bindings of any row start aligned.
    var base = 0
    /// A constant's pixels, until they go up with the first strip that reads them.
    var pending: FloatImage?

    init(width: Int) {
        self.width = width
    }

    /// Float pixels the buffer holds.
    var capacity: Int { (buffer?.size ?? 0) / MemoryLayout<SIMD4<Float>>.size }

    func drop(below row: Int) {
        let gone = min(max(0, row - top), count)
        top += gone
        count -= gone
    }

    func restart(at row: Int) {
        top = row
        count = 0
        base = row * width / PassTiling.alignment * PassTiling.alignment
    }

    /// Nothing: an image held whole stays on the host (`StripExecutor` uses no device place then).
    func reserve(rows: Int) {}
}

/// A strip's work while it is recorded and in flight: its slot, the source
/// rows staged (read straight into the slot's mapped staging, which grows
/// keeping them), the steps, and the buffers its steps use that no window
/// holds any more.
private final class Frame {
    /// A step of a strip; bound and recorded when the strip is submitted.
    enum Op {
        /// A pass's tile (or a barrier within one).
        case step(VulkanBackend.Work.Step)
        /// `unpack` of stored rows at `uploaded` in the strip's stored bytes into float pixels.
        case unpack(uploaded: Int, bytes: Int, into: RenderSlot.Binding, KernelParameters)
        /// `pack` of float pixels into the strip's packed bytes at `downloaded`.
        case pack(RenderSlot.Binding, downloaded: Int, bytes: Int, KernelParameters)
        /// A window's rows moved to another buffer.
        case copy(from: VulkanBuffer, fromOffset: Int, to: VulkanBuffer, toOffset: Int, bytes: Int)
        /// A constant's float pixels, staged at `uploaded`, copied into its buffer.
        case constant(uploaded: Int, bytes: Int, to: VulkanBuffer)
        /// Orders the dispatches before against those after.
        case barrier
    }

    let slot: RenderSlot
    var ops: [Op] = []
    /// Bytes staged for upload, from the start of staging.
    private(set) var uploadBytes = 0
    /// Output rows packed into the strip's download area.
    private(set) var downloads: [(strip: Range<Int>, offset: Int, bytes: Int)] = []
    private(set) var downloadBytes = 0
    var keepAlive: [VulkanBuffer] = []
    var inFlight = false
    /// Taps of the steps recorded since the strip (or its last part) was submitted (``DeviceStrips/flush(_:)``).
    var taps = 0
    /// Bytes staged for the device (the rows' own, without the alignment between pieces), and those already
    /// counted as handed to it (a strip submitted in parts hands them once).
    private(set) var stagedBytes = 0
    var countedUp = 0

    /// Whether a step recorded reads the staged stored rows (an unpack, a constant's pixels).
    var readsStaging: Bool {
        ops.contains { op in
            switch op {
            case .unpack, .constant: true
            default: false
            }
        }
    }

    /// Forgets the steps of a part submitted and done, keeping the strip's staged rows and buffers.
    func submittedPart() {
        ops.removeAll(keepingCapacity: true)
        taps = 0
    }
    /// The staging made at the first use of a slot without enough.
    private let stagingBytes: Int

    init(slot: RenderSlot, stagingBytes: Int) {
        self.slot = slot
        self.stagingBytes = stagingBytes
    }

    /// `bytes` rounded up so every binding offset in staging is aligned (256: the largest
    /// `minStorageBufferOffsetAlignment` the specification allows).
    static func aligned(_ bytes: Int) -> Int { (bytes + 255) / 256 * 256 }

    /// Makes staging hold at least `bytes`, keeping the rows staged: at first
    /// ``stagingBytes``, then growing by at least half, so a strip's rows are copied a few
    /// times at most.
    func reserve(_ bytes: Int) throws(ComputeError) {
        let size = slot.staging?.size ?? 0
        // A slot with no staging yet gets it even for nothing to stage: the first part of a strip that reads only rows
        // already on the device (all of a 3-row source, upscaled by 166, was staged by the strip before) has none, and
        // its submission failed ("staging buffer missing"): the CPU took the job over, `--device gpu` stopped it (75).
        guard bytes > size || slot.staging == nil else { return }
        try slot.reserveStaging(max(bytes, size * 3 / 2, stagingBytes), preserving: uploadBytes)
    }

    /// Makes room in staging for `bytes` more stored bytes, lets `fill` write them, and returns their offset.
    func stage(_ bytes: Int, fill: (UnsafeMutableRawPointer) -> Void) throws(ComputeError) -> Int {
        let offset = Self.aligned(uploadBytes)
        try reserve(offset + bytes)
        guard let mapped = slot.staging?.mapped else { throw .setupFailed("staging buffer missing") }
        fill(mapped + offset)
        uploadBytes = offset + bytes
        stagedBytes += bytes
        return offset
    }

    /// Reserves `bytes` of the download area for rows `strip` and returns their offset in it.
    func download(_ strip: Range<Int>, bytes: Int) -> Int {
        let offset = Self.aligned(downloadBytes)
        downloads.append((strip, offset, bytes))
        downloadBytes = offset + bytes
        return offset
    }

    /// Forgets the strip once it is delivered.
    func reset() {
        ops.removeAll(keepingCapacity: true)
        taps = 0
        countedUp = 0
        stagedBytes = 0
        uploadBytes = 0
        downloads.removeAll(keepingCapacity: true)
        downloadBytes = 0
        keepAlive.removeAll()
    }
}
