import Foundation

/// The threads that CPU loops split their work over (a kernel's bands, a PNG's deflate segments): kiln's own, one
/// fewer than the cores, the caller working beside them — never libdispatch's global pool.
///
/// On Linux, Swift concurrency's global executor runs its jobs on libdispatch's global queues, the pool that
/// `DispatchQueue.concurrentPerform` fills too. With as many images in flight as cores, every thread of that pool
/// was deflating a segment, and the task model's jobs waited behind them: a SIGTERM's stop reached the job 9.6 s
/// late under `--grace 0` (`--jobs 8`, `--level 9`, 2 cores; found 2026-11-29), the JSON progress went silent for
/// 11 s, and the stall watchdog could not run. Rejected: running the loops on a global queue of another QoS (which
/// pool `dispatch_apply` takes from its caller is libdispatch's internal choice, not a promise).
package enum CPUThreads {
    /// Calls `body` once for each of `0..<iterations`, concurrently on the pool's threads and the caller's, and
    /// returns once every call has returned. A `body` may call `perform` too: a caller runs its own job's
    /// iterations and waits only for those other threads started, so no wait closes a circle.
    package static func perform(iterations: Int, _ body: (Int) -> Void) {
        guard iterations > 1 else {
            if iterations == 1 { body(0) }
            return
        }
        withoutActuallyEscaping(body) { body in
            let job = Job(iterations: iterations, body: body)
            pool.run(job)
        }
    }

    /// The name of the pool's threads (`top -H`, `perf`, a debugger).
    package static let threadName = "kiln-cpu"

    /// Names the calling thread ``threadName``, through `/proc` (Glibc's `pthread_setname_np` is a GNU extension
    /// Swift does not import); a thread left unnamed works as well.
    private static func nameThisThread() {
        let file = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard file >= 0 else { return }
        _ = threadName.withCString { write(file, $0, strlen($0)) }
        close(file)
    }

    /// The cores this process may use: its CPU affinity and cgroup quota (a Slurm job given 2 CPUs of a 64-core node
    /// has 2, where `sysconf` counts 64), asked once (Foundation reads two cgroup files per ask, which was most of
    /// the system calls of a small image).
    package static let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// The threads beside the caller: one fewer than ``cores``.
    private static let pool = Pool(threads: max(1, cores - 1))

    // Unchecked: every field is read and written under the pool's mutex; `body` is called (outside it)
    // concurrently, as `perform` says, and outlives every call: the caller waits for them, then lets it go.
    private final class Job: @unchecked Sendable {
        let iterations: Int
        /// Let go once every iteration has returned: `withoutActuallyEscaping` checks that nothing holds it then,
        /// and a pool thread may still hold the job.
        var body: ((Int) -> Void)?
        /// The next iteration to hand out.
        var next = 0
        /// Iterations that have returned.
        var finished = 0

        init(iterations: Int, body: @escaping (Int) -> Void) {
            self.iterations = iterations
            self.body = body
        }
    }

    // Unchecked: every field but the mutex and conditions is touched only under the mutex; the mutex and the
    // conditions are initialised once, heap-allocated and never moved.
    private final class Pool: @unchecked Sendable {
        // A pthread mutex and conditions, not Synchronization.Mutex: ThreadSanitizer sees them (see ``Locked``).
        private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        /// Signalled when a job comes.
        private let arrived = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        /// Broadcast when a job's last iteration returns.
        private let done = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        /// Jobs with iterations not yet handed out, oldest first.
        private var waiting: [Job] = []
        private let threads: Int
        private var started = false

        init(threads: Int) {
            self.threads = threads
            pthread_mutex_init(mutex, nil)
            pthread_cond_init(arrived, nil)
            pthread_cond_init(done, nil)
        }

        /// Hands `job` out, works on it, and waits until all of it is done.
        func run(_ job: Job) {
            pthread_mutex_lock(mutex)
            if !started {
                started = true
                // A thread that cannot start (a process limit) leaves its share to the others and the caller.
                for _ in 0..<threads { startThread() }
            }
            waiting.append(job)
            if job.iterations > 2 { pthread_cond_broadcast(arrived) } else { pthread_cond_signal(arrived) }
            // The caller takes iterations of its own job only: it is never held by another's.
            while job.next < job.iterations { work(on: job) }
            while job.finished < job.iterations { pthread_cond_wait(done, mutex) }
            job.body = nil
            pthread_mutex_unlock(mutex)
        }

        /// Runs the next iteration of `job`, which has one, outside the mutex (held before and after).
        private func work(on job: Job) {
            let index = job.next
            job.next += 1
            if job.next == job.iterations { waiting.removeAll { $0 === job } }
            do {
                // Released before the mutex is taken again, so the caller's check never sees it held.
                let body = job.body!
                pthread_mutex_unlock(mutex)
                body(index)
            }
            pthread_mutex_lock(mutex)
            job.finished += 1
        }

        /// A pool thread's life: iterations of the oldest job with some left, for good.
        private func serve() -> Never {
            CPUThreads.nameThisThread()
            pthread_mutex_lock(mutex)
            while true {
                guard let job = waiting.first else {
                    pthread_cond_wait(arrived, mutex)
                    continue
                }
                work(on: job)
                if job.finished == job.iterations { pthread_cond_broadcast(done) }
            }
        }

        private func startThread() {
            var thread = pthread_t()
            let context = Unmanaged.passRetained(self).toOpaque()
            let created = pthread_create(&thread, nil, { context in
                Unmanaged<Pool>.fromOpaque(context!).takeRetainedValue().serve()
            }, context)
            if created == 0 {
                pthread_detach(thread)
            } else {
                Unmanaged<Pool>.fromOpaque(context).release()
            }
        }
    }
}
