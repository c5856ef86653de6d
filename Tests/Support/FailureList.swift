import Synchronization

/// Failures collected from worker threads, checked once they are done.
public final class FailureList: Sendable {
    private let items = Mutex<[String]>([])

    /// An empty list.
    public init() {}

    /// Adds a failure. Safe from any thread.
    public func append(_ failure: String) { items.withLock { $0.append(failure) } }

    /// Every failure so far.
    public var all: [String] { items.withLock { $0 } }
}
