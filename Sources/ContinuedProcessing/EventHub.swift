/// Fans every event out to all current subscribers, in emission order.
///
/// Events are yielded while the lock is held, so concurrent emitters (the scheduler
/// actor and tasks on other threads) are seen in one order by every subscriber.
final class EventHub: Sendable {
    private struct Subscribers {
        var next: UInt64 = 0
        var continuations: [UInt64: AsyncStream<TaskEvent>.Continuation] = [:]
    }

    private let subscribers = Locked(Subscribers())

    /// A new stream that receives every event emitted after this call returns.
    func subscribe() -> AsyncStream<TaskEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: TaskEvent.self, bufferingPolicy: .unbounded)
        let key = subscribers.withLock { state in
            state.next += 1
            state.continuations[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: key) }
        }
        return stream
    }

    func emit(_ event: TaskEvent) {
        subscribers.withLock { state in
            for continuation in state.continuations.values {
                continuation.yield(event)
            }
        }
    }

    deinit {
        // Finish outside the lock: finishing runs onTermination, which takes it.
        let continuations = subscribers.withLock { $0.continuations }
        for continuation in continuations.values {
            continuation.finish()
        }
    }
}
