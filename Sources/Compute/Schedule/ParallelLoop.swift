import Foundation
import Locking
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

    /// The cores this process may use (``CPUThreads/cores``).
    private static var cores: Int { CPUThreads.cores }

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
        CPUThreads.perform(iterations: chunks) { chunk in
            let start = chunk * chunkSize
            let end = min(start + chunkSize, count)
            if start < end { body(start..<end) }
        }
    }

    /// Copies `bytes` from `source` to `destination` (not overlapping), on
    /// several threads when there is more than a mebibyte per thread. Each
    /// piece but the last ends at a 2 MiB boundary of the destination, so a
    /// fresh destination's huge pages are faulted in side by side, one thread
    /// to a page (pieces within one page would wait for each other's fault).
    package static func copy(_ bytes: Int, from source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer) {
        let page = 2 << 20
        let threads = min(Self.threads, bytes >> 20)
        guard threads > 1 else {
            destination.copyMemory(from: source, byteCount: bytes)
            return
        }
        let start = UInt(bitPattern: destination), from = UInt(bitPattern: source)
        // The offsets of the pieces' ends: about bytes ÷ threads apart, rounded up to a page boundary.
        let step = (bytes / threads + page - 1) / page * page
        let firstEnd = Int((start + UInt(step)) / UInt(page) * UInt(page) - start)
        let pieces = 1 + max(0, (bytes - firstEnd + step - 1) / step)
        CPUThreads.perform(iterations: pieces) { piece in
            let lower = piece == 0 ? 0 : min(bytes, firstEnd + (piece - 1) * step)
            let upper = min(bytes, firstEnd + piece * step)
            guard lower < upper else { return }
            UnsafeMutableRawPointer(bitPattern: start + UInt(lower))!
                .copyMemory(from: UnsafeRawPointer(bitPattern: from + UInt(lower))!, byteCount: upper - lower)
        }
    }
}
