import Compute
import Dispatch
import Foundation
import Locking
import Testing

/// CPU loops (a kernel's bands, a PNG's deflate segments) run on kiln's own threads: on Linux, Swift concurrency's
/// executor shares libdispatch's global pool with `DispatchQueue.concurrentPerform`, and loops that filled it held
/// the task model's jobs back (a SIGTERM's stop reached a job of 8 images deflating at level 9 on 2 cores 9.6 s late,
/// its JSON progress silent for 11 s).
@Suite("CPU loops run on threads of their own (ParallelLoop, CPUThreads)")
struct CPUThreadsTests {
    /// The calling thread's name.
    private static func threadName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?")
            .trimmingCharacters(in: .newlines)
    }

    @Test("every chunk of a loop runs once, on the caller's thread or kiln's own, never on a thread of libdispatch's global pool, however many loops run at once")
    func loopsStayOffTheGlobalPool() throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let loops = 2 * cores, count = 64
        // Rows run, and the threads that ran a chunk other than their loop's caller, by name.
        let seen = Locked<(rows: Int, helpers: Set<String>)>((0, []))
        let done = DispatchGroup()
        for _ in 0..<loops {
            done.enter()
            Thread.detachNewThread {
                let caller = pthread_self()
                // 64 rows of 2^14 each: 4 chunks a thread (ParallelLoop's rule), each long enough that helpers join in.
                ParallelLoop.forEachChunk(count, itemCost: 1 << 14) { range in
                    let end = ContinuousClock.now + .milliseconds(20)
                    while ContinuousClock.now < end {}
                    let helper = pthread_equal(pthread_self(), caller) == 0 ? Self.threadName() : nil
                    seen.withLock { $0.rows += range.count; if let helper { $0.helpers.insert(helper) } }
                }
                done.leave()
            }
        }
        done.wait()
        let (rows, helpers) = seen.withLock { $0 }
        #expect(rows == loops * count, "every row once")
        // (On one core no loop is split: ParallelLoop gives it one thread, the caller.)
        #expect(helpers == (cores > 1 ? [CPUThreads.threadName] : []), "chunks ran on threads named \(helpers)")
    }
}
