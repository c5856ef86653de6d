import Dispatch
import Foundation

/// Splits CPU kernels over all cores for large images.
package enum ParallelLoop {
    /// Below this much work (items × cost) one thread is faster than waking the others.
    package static let minimumParallelWork = 1 << 16

    /// Calls `body` with disjoint ranges covering `0..<count`, concurrently when
    /// `count × itemCost` is large (`itemCost`: e.g. the pixels × taps of a row).
    package static func forEachChunk(_ count: Int, itemCost: Int = 1, _ body: @Sendable (Range<Int>) -> Void) {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let work = count * max(1, itemCost)
        guard work >= minimumParallelWork, cores > 1, count > 1 else {
            body(0..<count)
            return
        }
        // A few chunks per core even out uneven progress between threads.
        let chunks = min(cores * 4, count, work / (minimumParallelWork / 4))
        let chunkSize = (count + chunks - 1) / chunks
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let start = chunk * chunkSize
            let end = min(start + chunkSize, count)
            if start < end { body(start..<end) }
        }
    }
}
