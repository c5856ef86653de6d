// The library's pthread-backed lock: TSan sees it (it does not see Synchronization.Mutex on Linux).
@testable import ContinuedProcessing

/// A thread-safe count, with the largest value it ever had (for concurrency limits).
final class Counter: Sendable {
    private let state = Locked((value: 0, maximum: 0))

    var value: Int { state.withLock { $0.value } }
    var maximum: Int { state.withLock { $0.maximum } }

    func increment() {
        state.withLock { state in
            state.value += 1
            state.maximum = max(state.maximum, state.value)
        }
    }

    func decrement() {
        state.withLock { $0.value -= 1 }
    }
}

/// A thread-safe list, for values recorded by handlers and hooks.
final class Recorded<Element: Sendable>: Sendable {
    private let items = Locked<[Element]>([])

    var all: [Element] { items.withLock { $0 } }

    func append(_ item: Element) {
        items.withLock { $0.append(item) }
    }
}
