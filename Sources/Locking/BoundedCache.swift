/// A few values by key behind one lock, all forgotten at once when it is full: for work that many
/// images of a batch repeat alike (the passes of an image size, a colour profile and its transforms),
/// where the distinct keys of a batch are few. A value is made outside the lock: two threads may both
/// make a missing one, and the second kept replaces the first (they are equal).
package final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let entries: Locked<[Key: Value]>
    private let capacity: Int

    /// An empty cache of at most `capacity` values.
    package init(capacity: Int) {
        entries = Locked([:])
        self.capacity = capacity
    }

    /// The value for `key`: the one kept, or `make()`'s, then kept.
    package func value<Failure: Error>(for key: Key, make: () throws(Failure) -> Value) throws(Failure) -> Value {
        if let kept = entries.withLock({ $0[key] }) { return kept }
        let made = try make()
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = made
        }
        return made
    }
}
