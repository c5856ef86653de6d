#if canImport(Glibc)
import Glibc
#endif

/// A value behind a `pthread_mutex_t`: the one lock type of Kiln's modules
/// (but `ContinuedProcessing`, which depends on nothing and keeps its own).
///
/// Used instead of `Synchronization.Mutex` because on Linux `Mutex` locks with
/// futexes inside the (uninstrumented) standard library, so ThreadSanitizer
/// cannot see it and reports every access it protects as a race — and the
/// export, compute and task-model tests run under TSan in CI, where a report
/// fails the run. TSan intercepts `pthread_mutex_lock`.
// The mutex is initialised once and never moved (it is heap-allocated), and
// `value` is only touched between lock and unlock: safe to share across threads.
package final class Locked<Value>: @unchecked Sendable {
    // A pthread mutex, not Synchronization.Mutex: TSan intercepts pthread_mutex_lock (see above).
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    /// A lock around `value`.
    package init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. Not reentrant.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
