@testable import ContinuedProcessing  // for the library's Locked
/// Collects every event of one `events()` subscription, for assertions.
final class EventRecorder: Sendable {
    private final class Storage: Sendable {
        let events = Locked<[TaskEvent]>([])
    }

    private let storage: Storage
    private let consumer: Task<Void, Never>

    /// Subscribes now: every event emitted after this returns is recorded.
    init(_ scheduler: TaskScheduler) {
        let stream = scheduler.events()
        let storage = Storage()
        self.storage = storage
        consumer = Task {
            for await event in stream {
                storage.events.withLock { $0.append(event) }
            }
        }
    }

    deinit {
        consumer.cancel()
    }

    var all: [TaskEvent] { storage.events.withLock { $0 } }

    func events(for identifier: String) -> [TaskEvent] {
        all.filter { $0.identifier == identifier }
    }

    func contains(_ event: TaskEvent) -> Bool {
        all.contains(event)
    }

    /// Waits until `condition` holds for the events so far, or the timeout passes.
    @discardableResult
    func waitUntil(timeout: Duration = .seconds(20), _ condition: @Sendable ([TaskEvent]) -> Bool) async -> Bool {
        await eventually(within: timeout) { condition(self.all) }
    }

    /// Waits until `event` has been seen.
    @discardableResult
    func waitFor(_ event: TaskEvent, timeout: Duration = .seconds(20)) async -> Bool {
        await waitUntil(timeout: timeout) { $0.contains(event) }
    }

    /// The index of `event` in the recording; `Int.max` when absent, so orderings fail.
    func index(of event: TaskEvent) -> Int {
        all.firstIndex(of: event) ?? .max
    }
}
