import Foundation
package import PNGCodec

/// Reads a forward-only source (a decoder) ahead of the render stage, on a
/// thread of its own, a few blocks of rows at a time: decoding (inflate,
/// unfilter — one stream, so one core) then overlaps the passes, which run on
/// the other cores. Memory: `depth` blocks of stored rows, following the width.
///
/// Every row of the source is read, in order, whatever the consumer skips, so
/// the source is at its end when ``finish()`` returns.
package final class RowPrefetcher: RowSource, @unchecked Sendable {
    package let width: Int
    package let height: Int
    package let depth: PixelBuffer.Depth
    package var isRandomAccess: Bool { false }

    private let source: any RowSource
    private let rowBytes: Int
    private let blockRows: Int
    /// Ring of blocks; block b holds rows b·blockRows ..< (b+1)·blockRows in slot b mod count.
    private let slots: [UnsafeMutableRawPointer]
    private let condition = NSCondition()
    /// Guarded by `condition`: blocks read so far, blocks the consumer is done with,
    /// the producer's error, whether the consumer gave up, whether the producer ended.
    private var produced = 0
    private var consumed = 0
    private var failure: (any Error)?
    private var cancelled = false
    private var ended = false

    /// A prefetcher of `source`, in blocks of about `blockBytes` of stored rows, `depth` of them; `start` runs it.
    private init(_ source: any RowSource, blockBytes: Int = 2 << 20, depth: Int = 3) {
        self.source = source
        width = source.width
        height = source.height
        self.depth = source.depth
        rowBytes = source.width * 4 * source.depth.bytesPerSample
        blockRows = max(1, min(source.height, blockBytes / max(1, rowBytes)))
        let bytes = blockRows * rowBytes
        slots = (0..<max(2, depth)).map { _ in UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16) }
    }

    /// Starts reading `source` ahead (see `init`); the render stage reads from the result.
    package static func start(_ source: any RowSource) -> RowPrefetcher {
        let prefetcher = RowPrefetcher(source)
        let thread = Thread { prefetcher.produce() }
        thread.name = "kiln decode"
        thread.start()
        return prefetcher
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
            let held = span(ofBlock: block)
            let end = min(rows.upperBound, held.upperBound)
            let from = slots[block % slots.count] + (row - held.lowerBound) * rowBytes
            (destination + (row - rows.lowerBound) * rowBytes).copyMemory(from: from, byteCount: (end - row) * rowBytes)
            row = end
        }
    }

    /// Lets the producer read the rest of the source and waits for it to end;
    /// throws the error it met, if any. Call before using `source` again.
    package func finish() throws {
        condition.lock()
        consumed = Int.max / 2
        condition.broadcast()
        while !ended { condition.wait() }
        let error = failure
        condition.unlock()
        if let error { throw error }
    }

    /// Stops the producer after its current block and waits for it (the render failed).
    package func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        while !ended { condition.wait() }
        condition.unlock()
    }
}
