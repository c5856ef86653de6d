import Synchronization

/// Values collected from worker threads (failures, fractions reported, warnings), checked once they are done.
public final class Collected<Value: Sendable>: Sendable {
    private let items = Mutex<[Value]>([])

    /// An empty list.
    public init() {}

    /// Adds a value. Safe from any thread.
    public func append(_ value: Value) { items.withLock { $0.append(value) } }

    /// Every value so far, in the order added.
    public var all: [Value] { items.withLock { $0 } }
}

/// Failures collected from worker threads, checked once they are done.
public typealias FailureList = Collected<String>
