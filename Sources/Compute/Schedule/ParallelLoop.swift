import Dispatch
import Foundation
import Synchronization

/// Splits CPU kernels over the cores left to each image in flight.
package enum ParallelLoop {
    /// Below this much work (items × cost) one thread is faster than waking the others.
    package static let minimumParallelWork = 1 << 16

    /// Images being rendered at once in this process (export workers count
    /// themselves in with `rendering`): each image's kernels share the cores
    /// with the others, so two images on two cores run one thread each instead
    /// of four threads fighting over two cores (measured on W1 with 2 jobs: 40 %
    /// more CPU time for the same work, spent in contention).
    private static let imagesInFlight = Atomic<Int>(0)

    /// Runs `body` counted as one image in flight.
    package static func rendering<R>(_ body: () throws -> R) rethrows -> R {
        imagesInFlight.add(1, ordering: .relaxed)
        defer { imagesInFlight.subtract(1, ordering: .relaxed) }
        return try body()
    }

    /// The cores, asked once: Foundation reads two cgroup files per ask, which
    /// was most of the system calls of a small image (issue "Many small images").
    private static let cores = ProcessInfo.processInfo.activeProcessorCount

    /// Whether fewer images are being rendered than there are cores (one image
    /// on two cores): its decoder may then run on a thread of its own (``ReadAhead``).
    package static var hasSpareCore: Bool {
        cores > imagesInFlight.load(ordering: .relaxed)
    }

    /// The threads one kernel call may use now.
    package static var threads: Int {
        max(1, cores / max(1, imagesInFlight.load(ordering: .relaxed)))
    }

    /// Calls `body` with disjoint ranges covering `0..<count`, concurrently when
    /// `count × itemCost` is large (`itemCost`: e.g. the pixels × taps of a row).
    package static func forEachChunk(_ count: Int, itemCost: Int = 1, _ body: @Sendable (Range<Int>) -> Void) {
        let work = count * max(1, itemCost)
        guard work >= minimumParallelWork, count > 1 else {
            body(0..<count)
            return
        }
        let threads = threads
        guard threads > 1 else {
            body(0..<count)
            return
        }
        // A few chunks per thread even out uneven progress between threads.
        let chunks = min(threads * 4, count, work / (minimumParallelWork / 4))
        let chunkSize = (count + chunks - 1) / chunks
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let start = chunk * chunkSize
            let end = min(start + chunkSize, count)
            if start < end { body(start..<end) }
        }
    }
}
