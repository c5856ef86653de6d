import Synchronization

/// A thread-safe increasing counter.
final class AtomicCounter: Sendable {
    private let value = Atomic<Int>(0)

    /// Returns the next value, starting at 1.
    func next() -> Int {
        value.add(1, ordering: .relaxed).newValue
    }
}
