import Foundation

/// A value behind a `pthread_mutex_t`.
///
/// Used instead of `Synchronization.Mutex` because on Linux `Mutex` locks with futexes
/// inside the (uninstrumented) standard library, so ThreadSanitizer cannot see it and
/// reports every access it protects as a race. TSan intercepts `pthread_mutex_lock`.
// Unchecked: the value is only touched between pthread_mutex_lock and unlock (below); the mutex is heap-allocated, never moved.
final class Locked<Value: Sendable>: @unchecked Sendable {
    // A pthread mutex, not Synchronization.Mutex: TSan intercepts pthread_mutex_lock (see above).
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. Not reentrant.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
