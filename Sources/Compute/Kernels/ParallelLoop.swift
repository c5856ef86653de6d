import Dispatch
import Foundation

/// Splits per-pixel CPU kernels over all cores for large images.
enum ParallelLoop {
    /// Below this many items one thread is faster than waking the others.
    static let minimumParallelCount = 1 << 16

    /// Calls `body` with disjoint ranges covering `0..<count`, concurrently when `count` is large.
    static func forEachChunk(_ count: Int, _ body: @Sendable (Range<Int>) -> Void) {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard count >= minimumParallelCount, cores > 1 else {
            body(0..<count)
            return
        }
        // A few chunks per core even out uneven progress between threads.
        let chunks = min(cores * 4, count / (minimumParallelCount / 4))
        let chunkSize = (count + chunks - 1) / chunks
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let start = chunk * chunkSize
            let end = min(start + chunkSize, count)
            if start < end { body(start..<end) }
        }
    }
}
