import Foundation
package import ImageCore

/// Reads a forward-only source (a decoder) ahead of the strips on a thread of
/// its own, a block of rows at a time, so that decoding — inflate and
/// unfilter, one stream and so one core — runs beside the passes instead of
/// between their chunks. ``RenderSchedule`` uses it only while a core is
/// spare (``ParallelLoop/hasSpareCore``): one image on two cores.
///
/// Measured on this 2-core machine, the 16000×9000 photo, interleaved with the
/// worker decoding between chunks: `--blur 4 --level 1` 3.53 → 3.00–3.22 s
/// (vips gaussblur 3.23–3.38 s), fit to 1920 1.88–2.06 → 1.50–1.63 s, for
/// 3.5 MB more. Blocks of 256 KiB were slower (more hand-overs), 4 MiB no
/// faster and 9 MB larger. Rejected twice before for every image (`0fe724a`):
/// two images on two cores, each with a decoding thread, ran their passes 2–4×
/// slower.
///
/// Rows are read in order, each once, a few blocks ahead of the consumer;
/// rows it skips are read too (what a decoder does to skip them).
package final class ReadAhead: RowSource, @unchecked Sendable {
    // @unchecked: the blocks and the counters are shared by the two threads only under `condition`;
    // a slot is written by the producer only while the consumer cannot read it (its block ≥ produced).
    package let width: Int
    package let height: Int
    package let depth: PixelBuffer.Depth

    /// Stored bytes a block holds, at least (and at least one row): whole rows up to this or just past it.
    /// Past it, not short of it: the allocator maps a request of 1 MiB and more of its own, returned when freed
    /// (kiln's `MemoryPolicy`), where no free space of its heap serves it, and blocks just short of it always came
    /// from its heap, where a batch of small images left them scattered: `--jobs 64` of 200 images of 800 × 600 under `--memory 100M` grew to 200 MB
    /// and more (1 MiB less 256 bytes a block); with blocks past it, 94 MB (80 MB at `--jobs 2`, from 88).
    package static let blockBytes = 1 << 20
    /// Blocks in the ring: one being decoded, one being read, one ready.
    package static let slotCount = 3

    private let source: any RowSource
    private let rowBytes: Int
    private let blockRows: Int
    /// Block b holds rows b·blockRows ..< (b+1)·blockRows in slot b mod slotCount.
    private let slots: [UnsafeMutableRawPointer]
    // NSCondition, not Locked: both threads wait on it (the consumer for a block, the producer for a slot).
    private let condition = NSCondition()
    /// Under `condition`: blocks read so far, the first block the consumer may still read, the
    /// producer's error, whether the consumer gave up, whether the producer ended.
    private var produced = 0
    private var consumed = 0
    private var failure: (any Error)?
    private var cancelled = false
    private var ended = false

    /// The bytes a read-ahead of rows `width` pixels wide at `depth` holds, in blocks of about `blockBytes`.
    package static func bytes(width: Int, height: Int, depth: PixelBuffer.Depth, blockBytes: Int = blockBytes) -> Int {
        let rowBytes = width * 4 * depth.bytesPerSample
        return slotCount * rows(rowBytes: rowBytes, height: height, blockBytes: blockBytes) * rowBytes
    }

    private static func rows(rowBytes: Int, height: Int, blockBytes: Int) -> Int {
        max(1, min(height, (blockBytes + rowBytes - 1) / max(1, rowBytes)))
    }

    private init(_ source: any RowSource, blockBytes: Int) {
        self.source = source
        width = source.width
        height = source.height
        depth = source.depth
        rowBytes = source.width * 4 * source.depth.bytesPerSample
        let rows = Self.rows(rowBytes: rowBytes, height: height, blockBytes: blockBytes)
        blockRows = rows
        let bytes = rows * rowBytes
        slots = (0..<Self.slotCount).map { _ in UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64) }
    }

    /// Starts reading `source` ahead on a thread of its own, in blocks of about `blockBytes`
    /// (tests make them small); read the rows from the result, then call ``stop()`` before
    /// using `source` again.
    package static func start(_ source: any RowSource, blockBytes: Int = blockBytes) -> ReadAhead {
        let ahead = ReadAhead(source, blockBytes: blockBytes)
        let thread = Thread { ahead.produce() }
        thread.name = "kiln decode"
        thread.start()
        return ahead
    }

    deinit {
        for slot in slots { slot.deallocate() }
    }

    private var blockCount: Int { (height + blockRows - 1) / blockRows }

    private func span(ofBlock block: Int) -> Range<Int> {
        (block * blockRows)..<min(height, (block + 1) * blockRows)
    }

    private func produce() {
        for block in 0..<blockCount {
            condition.lock()
            while block - consumed >= slots.count && !cancelled { condition.wait() }
            let stop = cancelled
            condition.unlock()
            if stop { break }
            do {
                try source.read(span(ofBlock: block), into: slots[block % slots.count])
            } catch {
                condition.lock()
                failure = error
                condition.unlock()
                break
            }
            condition.lock()
            produced = block + 1
            condition.broadcast()
            condition.unlock()
        }
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    package func read(_ rows: Range<Int>, into destination: UnsafeMutableRawPointer) throws {
        try visit(rows) { piece, samples in
            (destination + (piece.lowerBound - rows.lowerBound) * rowBytes).copyMemory(from: samples, byteCount: piece.count * rowBytes)
        }
    }

    /// Hands `body` rows `rows` where they lie, in the pieces the blocks hold (rows, their
    /// stored samples), in order: what unpacks them needs no copy first. The same reading
    /// rules as ``read(_:into:)``; the samples are valid during the call.
    /// - Throws: the source's error, or `body`'s.
    package func visit(_ rows: Range<Int>, _ body: (Range<Int>, UnsafeRawPointer) throws -> Void) throws {
        var row = rows.lowerBound
        while row < rows.upperBound {
            let block = row / blockRows
            condition.lock()
            // Blocks wholly above `row` are done with: the producer may reuse their slots.
            if block > consumed {
                consumed = block
                condition.broadcast()
            }
            while produced <= block && !ended { condition.wait() }
            let ready = produced > block, error = failure
            condition.unlock()
            guard ready else { throw error ?? CancellationError() }
            // The producer refills this block's slot only once `consumed` has passed it: not during `body`.
            let held = span(ofBlock: block)
            let end = min(rows.upperBound, held.upperBound)
            try body(row..<end, slots[block % slots.count] + (row - held.lowerBound) * rowBytes)
            row = end
        }
    }

    /// Stops the producer after the block it is reading and waits for it;
    /// throws the error it met, if any. The source is then past the rows read
    /// so far, and may be used again (its `finish` reads the rest).
    package func stop() throws {
        condition.lock()
        cancelled = true
        condition.broadcast()
        while !ended { condition.wait() }
        let error = failure
        condition.unlock()
        if let error { throw error }
    }
}
