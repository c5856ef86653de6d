import ImageCore
import Glibc
import CPNG
import Locking

/// Compresses one PNG's rows as they arrive and writes the file to an
/// ``EncodedOutput`` as it goes (SPEC §8): the signature, IHDR and the chunks
/// before the pixels at ``begin(chunks:time:)``, IDAT chunks as the rows are
/// compressed, the chunks after them and IEND at ``finish(chunks:time:)``.
/// What it holds follows the width: the rows of one batch of segments and the
/// 32 KiB before them, never the image.
///
/// The bytes depend only on the rows and settings, never on how the rows were
/// split into calls: the encoder a held image goes through (``PNGEncoder``)
/// and the one a streamed image goes through are this one.
final class PNGStream {
    private let plan: EncodingPlan
    private let width: Int
    private let height: Int
    private let output: any EncodedOutput
    private var compressor: Compressor
    /// Told of the rows compressed, when someone listens (set before the rows come).
    var progress: EncodeProgress?

    /// How the rows are compressed: libpng and zlib, or the fast path's segments.
    private enum Compressor {
        case zlib(OpaquePointer?)
        case segments(Segments)
    }

    /// A stream of a `width × height` image planned by `plan`, written to `output`.
    init(width: Int, height: Int, plan: EncodingPlan, output: any EncodedOutput) {
        self.plan = plan
        self.width = width
        self.height = height
        self.output = output
        compressor = plan.fast.map { .segments(Segments(width: width, height: height, plan: plan, fast: $0)) } ?? .zlib(nil)
    }

    /// C's CPNG_NO_TIME (INT64_MIN): no tIME. (0 is a time: SOURCE_DATE_EPOCH=0 wrote none before.)
    private static let noTime = Int64.min

    deinit {
        if case .zlib(let writer) = compressor { cpng_zlib_writer_close(writer) }
    }

    /// Writes the start of the file: signature, IHDR, `chunks` located before
    /// the image data and, when there is a `time`, a tIME saying it.
    func begin(chunks: [PNGChunk], time: Int64?) throws {
        let time = time ?? Self.noTime
        var status = cpng_status()
        switch compressor {
        case .zlib:
            let writer = PNGChunk.withRaw(chunks) { raw in
                plan.withFormat { format in
                    cpng_zlib_writer_open(UInt32(width), UInt32(height), format, Int32(plan.level),
                                          plan.adaptiveFilters ? CPNG_FILTERS_ADAPTIVE : CPNG_FILTERS_NONE,
                                          raw.baseAddress, raw.count, time, &status)
                }
            }
            guard let writer else { throw PNGError(status: status) }
            compressor = .zlib(writer)
            try drain(writer)
        case .segments:
            var head = cpng_buffer()
            defer { cpng_buffer_free(&head) }
            _ = PNGChunk.withRaw(chunks) { raw in
                plan.withFormat { format in
                    cpng_png_head(UInt32(width), UInt32(height), format, raw.baseAddress, raw.count, time, &head, &status)
                }
            }
            guard status.code == CPNG_OK else { throw PNGError(status: status) }
            try write(head)
        }
    }

    /// Compresses the next `count` canonical rows at `rows`.
    func append(_ rows: UnsafeRawPointer, count: Int) throws {
        switch compressor {
        case .zlib(let writer):
            var status = cpng_status()
            // The callback reaches `progress` through an unretained pointer, valid while `progress` lives (the call).
            var hook = cpng_row_progress()
            if let progress {
                hook.done = { context, fraction in
                    Unmanaged<EncodeProgress>.fromOpaque(context!).takeUnretainedValue().report(fraction)
                }
                hook.context = Unmanaged.passUnretained(progress).toOpaque()
            }
            let code = withExtendedLifetime(progress) { cpng_zlib_writer_rows(writer, rows, UInt32(count), &hook, &status) }
            guard code == CPNG_OK else { throw PNGError(status: status) }
            try drain(writer)
        case .segments(let segments):
            try segments.append(rows, count: count, progress: progress) { try write(idat: $0, $1) }
        }
    }

    /// Ends the image data and writes `chunks` located after it, a tIME saying
    /// `time` when there is one (one the start did not write), and IEND.
    func finish(chunks: [PNGChunk], time: Int64?) throws {
        let time = time ?? Self.noTime
        var status = cpng_status()
        switch compressor {
        case .zlib(let writer):
            let code = PNGChunk.withRaw(chunks) { raw in
                cpng_zlib_writer_finish(writer, raw.baseAddress, raw.count, time, &status)
            }
            guard code == CPNG_OK else { throw PNGError(status: status) }
            try drain(writer)
        case .segments(let segments):
            try segments.finish { try write(idat: $0, $1) }
            var tail = cpng_buffer()
            defer { cpng_buffer_free(&tail) }
            _ = PNGChunk.withRaw(chunks) { raw in cpng_png_tail(raw.baseAddress, raw.count, time, &tail, &status) }
            guard status.code == CPNG_OK else { throw PNGError(status: status) }
            try write(tail)
        }
    }

    /// Writes what libpng made since the last call, and empties its buffer.
    private func drain(_ writer: OpaquePointer?) throws {
        let made = cpng_zlib_writer_output(writer)!
        defer { made.pointee.size = 0 }
        guard made.pointee.size > 0 else { return }
        try output.write(UnsafeRawBufferPointer(start: made.pointee.data, count: made.pointee.size))
    }

    private func write(_ buffer: cpng_buffer) throws {
        try output.write(UnsafeRawBufferPointer(start: buffer.data, count: buffer.size))
    }

    /// Writes one IDAT chunk holding `first` then `second`, in place: its
    /// length and type, the data where it lies, its CRC. (Built whole in a
    /// buffer first, each megabyte of the stream was copied once more, into
    /// memory mapped fresh; with the whole stream gathered in `pending` too,
    /// W1 fit to 1920 took about 188,000 page faults, now about 180,000.)
    private func write(idat first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) throws {
        let type: [UInt8] = Array("IDAT".utf8)
        var crc = cpng_crc32(0, type, 4)
        for piece in [first, second] {
            crc = cpng_crc32(crc, piece.baseAddress?.assumingMemoryBound(to: UInt8.self), piece.count)
        }
        try output.write(withUnsafeBytes(of: UInt32(first.count + second.count).bigEndian, Array.init) + type)
        for piece in [first, second] where !piece.isEmpty { try output.write(piece) }
        try output.write(withUnsafeBytes(of: crc.bigEndian, Array.init))
    }
}

extension PNGStream {
    /// The fast path's compressor: rows filtered and deflated in segments of
    /// about ``segmentBytes`` filtered bytes, a batch of segments at a time on
    /// every core (each primed with the 32 KiB of filtered rows before it, so
    /// they are independent), the zlib stream cut into IDAT chunks of
    /// ``idatBytes`` as it grows.
    final class Segments {
        /// Writes one IDAT chunk holding its two arguments, one after the other.
        typealias IDATWriter = (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void

        private let width: Int
        private let height: Int
        private let plan: EncodingPlan
        private let fast: EncodingPlan.FastDeflate
        private let rowBytes: Int
        /// Rows per segment (all of them for the whole-image deflater).
        private let rowsPerSegment: Int
        private let segmentCount: Int
        /// Segments compressed together, on every core.
        private let batch: Int
        /// Canonical rows from `heldFirst` on, copied from earlier calls: those the next
        /// segments prime with and compress.
        private var held: [UInt8] = []
        /// The first row the next segment reads.
        private var heldFirst = 0
        private var received = 0
        /// The next segment to compress.
        private var nextSegment = 0
        /// The zlib stream not yet written in an IDAT chunk.
        private var pending: [UInt8]
        /// Adler-32 of the filtered bytes compressed so far.
        private var adler: UInt32 = 1

        /// Bytes of filtered rows per segment: large enough that priming costs little, small
        /// enough that an image spreads over the cores.
        static let segmentBytes = 1 << 20
        /// Bytes of the zlib stream per IDAT chunk.
        static let idatBytes = 1 << 20
        /// Bytes of one filtered row (its filter byte too).
        private let filteredRowBytes: Int

        init(width: Int, height: Int, plan: EncodingPlan, fast: EncodingPlan.FastDeflate) {
            self.width = width
            self.height = height
            self.plan = plan
            self.fast = fast
            rowBytes = width * 4 * plan.rowDepth.bytesPerSample
            let filteredRow = plan.storedRowBytes(width: width) + 1
            filteredRowBytes = filteredRow
            rowsPerSegment = fast.deflater == CPNG_DEFLATER_WHOLE ? height : max(1, Self.segmentBytes / filteredRow)
            segmentCount = (height + rowsPerSegment - 1) / rowsPerSegment
            pending = fast.zlibHeader
            batch = CPUThreads.cores
        }

        func append(_ rows: UnsafeRawPointer, count: Int, progress: EncodeProgress?,
                    idat: IDATWriter) throws {
            precondition(received + count <= height, "more rows than the image has")
            let start = received
            received += count
            if held.isEmpty && heldFirst == start {
                // Every row the next segments read is among these: compressed from where they are
                // (a held image is never copied), and only those still needed later are kept.
                try compressReady(UnsafeRawBufferPointer(start: rows, count: count * rowBytes), from: start,
                                  progress: progress, idat: idat)
                if heldFirst < received {
                    held.append(contentsOf: UnsafeRawBufferPointer(start: rows + (heldFirst - start) * rowBytes,
                                                                   count: (received - heldFirst) * rowBytes))
                }
            } else {
                held.append(contentsOf: UnsafeRawBufferPointer(start: rows, count: count * rowBytes))
                let first = heldFirst
                let kept = try held.withUnsafeBytes { rows in
                    try compressReady(rows, from: first, progress: progress, idat: idat)
                    return heldFirst
                }
                held.removeFirst(min(held.count, (kept - first) * rowBytes))
            }
        }

        func finish(idat: IDATWriter) throws {
            precondition(received == height, "\(height - received) rows were never written")
            precondition(nextSegment == segmentCount, "segments left once every row was in")
            held = []
            try withUnsafeBytes(of: adler.bigEndian) { try emit($0, idat: idat) }
            if !pending.isEmpty { try pending.withUnsafeBytes { try idat($0, UnsafeRawBufferPointer(start: nil, count: 0)) } }
            pending = []
        }

        /// Compresses every batch of segments whose rows are all in (the last one once every
        /// row is), reading `rows`, which start at row `first`; `heldFirst` then says the
        /// first row the next segment reads.
        private func compressReady(_ rows: UnsafeRawBufferPointer, from first: Int, progress: EncodeProgress?,
                                   idat: IDATWriter) throws {
            while nextSegment < segmentCount {
                let end = min(segmentCount, nextSegment + batch)
                guard min(height, end * rowsPerSegment) <= received else { break }
                try compress(nextSegment..<end, rows: rows, from: first, progress: progress, idat: idat)
            }
            heldFirst = nextSegment < segmentCount
                ? max(first, Int(plan.withFormat { format in
                    cpng_fast_first_needed_row(UInt32(width), format, UInt32(nextSegment * rowsPerSegment))
                }))
                : received
        }

        /// Compresses `range` of segments on every core, from `rows` (starting at row `first`),
        /// adding them to the stream.
        private func compress(_ range: Range<Int>, rows: UnsafeRawBufferPointer, from first: Int,
                              progress: EncodeProgress?, idat: IDATWriter) throws {
            let results = UnsafeMutableBufferPointer<(cpng_segment, cpng_status)>.allocate(capacity: range.count)
            defer { results.deallocate() }
            let (width, height, plan, fast, rowsPerSegment, count) = (width, height, plan, fast, rowsPerSegment, segmentCount)
            let filteredRow = filteredRowBytes
            // Each iteration writes only its own slot; the rows are read-only.
            nonisolated(unsafe) let slots = results
            nonisolated(unsafe) let pixels = rows
            let run: @Sendable (Int) -> Void = { offset in
                var segment = cpng_segment()
                var status = cpng_status()
                let start = (range.lowerBound + offset) * rowsPerSegment, end = min(height, start + rowsPerSegment)
                let deflate = {
                    _ = plan.withFormat { format in
                        cpng_fast_segment(pixels.baseAddress, UInt32(first), UInt32(width), UInt32(height), format,
                                          UInt32(start), UInt32(end), fast.deflater, Int32(fast.level), fast.heuristic,
                                          &segment, &status)
                    }
                }
                // A segment says nothing until it ends: zlib's level 9 on a megabyte of noisy rows is seconds of CPU,
                // and with more images in flight than cores (--jobs 8 on 2) a segment's wall time was 14 s, flat, so a
                // --stall-timeout under that stopped a job that worked. Its thread's CPU time moves the progress
                // within the segment's share meanwhile; not for an image deflated whole because it is small (a timer
                // each was work added to every one of a batch of thumbnails, which take milliseconds).
                if let progress, (end - start) * filteredRow >= EncodingPlan.smallestSegmentedImage {
                    progress.reportingWork(below: 1 / Double(count), deflate)
                } else {
                    deflate()
                }
                (slots.baseAddress! + offset).initialize(to: (segment, status))
                progress?.segmentDone(of: count)
            }
            CPUThreads.perform(iterations: range.count, run)
            defer { for index in results.indices { cpng_segment_free(&results[index].0) } }
            if let failure = results.first(where: { $0.1.code != CPNG_OK }) { throw PNGError(status: failure.1) }
            for (index, (segment, _)) in results.enumerated() {
                adler = range.lowerBound == 0 && index == 0 ? segment.adler
                    : cpng_adler32_combine(adler, segment.adler, segment.raw_size)
                try emit(UnsafeRawBufferPointer(start: segment.data, count: segment.size), idat: idat)
            }
            nextSegment = range.upperBound
        }

        /// Adds `data` to the stream: every full IDAT chunk it completes is written from where
        /// the data lies (after the bytes pending before it, if any); the rest, less than a
        /// chunk, stays pending. The chunks are those of the whole stream cut every
        /// ``idatBytes``, however it comes.
        private func emit(_ data: UnsafeRawBufferPointer, idat: IDATWriter) throws {
            var rest = data[...]
            if pending.count + rest.count >= Self.idatBytes {
                let taken = Self.idatBytes - pending.count
                try pending.withUnsafeBytes { try idat($0, UnsafeRawBufferPointer(rebasing: rest.prefix(taken))) }
                pending.removeAll(keepingCapacity: true)
                rest = rest.dropFirst(taken)
                while rest.count >= Self.idatBytes {
                    try idat(UnsafeRawBufferPointer(rebasing: rest.prefix(Self.idatBytes)), UnsafeRawBufferPointer(start: nil, count: 0))
                    rest = rest.dropFirst(Self.idatBytes)
                }
            }
            pending.append(contentsOf: rest)
        }
    }
}

extension PNGChunk {
    /// Calls `body` with `chunks` as C sees them, their data pinned for the call.
    static func withRaw<R>(_ chunks: [PNGChunk], _ body: (UnsafeBufferPointer<cpng_chunk>) -> R) -> R {
        func pinning(_ index: Int, _ raw: inout [cpng_chunk]) -> R {
            guard index < chunks.count else { return raw.withUnsafeBufferPointer(body) }
            return chunks[index].data.withUnsafeBufferPointer { data in
                var chunk = cpng_chunk()
                withUnsafeMutableBytes(of: &chunk.name) { name in
                    for (i, byte) in chunks[index].type.utf8.prefix(4).enumerated() { name[i] = byte }
                }
                chunk.data = data.baseAddress
                chunk.size = data.count
                chunk.location = Int32(chunks[index].placement.rawValue)
                raw.append(chunk)
                return pinning(index + 1, &raw)
            }
        }
        var raw: [cpng_chunk] = []
        return pinning(0, &raw)
    }
}
