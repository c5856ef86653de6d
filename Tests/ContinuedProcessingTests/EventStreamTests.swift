import ContinuedProcessing
import Testing

@Suite("events()")
struct EventStreamTests {
    @Test func everySubscriberSeesEveryEventInOrder() async throws {
        let scheduler = makeScheduler()
        let first = EventRecorder(scheduler)
        let second = EventRecorder(scheduler)
        let gate = Gate()
        try await scheduler.registerGated("org.test.a", gate: gate)
        try await scheduler.register(forTaskWithIdentifier: "org.test.b") { task in
            task.updateTitle("Working", subtitle: "1 of 2")
            task.updateTitle("Working", subtitle: "2 of 2")
            task.setTaskCompleted(success: true)
        }
        try await scheduler.submit(request("org.test.a"))
        try await scheduler.submit(request("org.test.b"))
        gate.open()
        let expected: [TaskEvent] = [
            .started(identifier: "org.test.a"),
            .queued(identifier: "org.test.b", position: 1),
            .completed(identifier: "org.test.a", success: true),
            .started(identifier: "org.test.b"),
            .titleChanged(identifier: "org.test.b", title: "Working", subtitle: "1 of 2"),
            .titleChanged(identifier: "org.test.b", title: "Working", subtitle: "2 of 2"),
            .completed(identifier: "org.test.b", success: true),
        ]
        #expect(await first.waitUntil { $0.count >= expected.count })
        #expect(await second.waitUntil { $0.count >= expected.count })
        #expect(first.all == expected)
        #expect(second.all == expected)
    }

    @Test func aLaterSubscriptionSeesOnlyLaterEvents() async throws {
        let scheduler = makeScheduler()
        let early = EventRecorder(scheduler)
        try await scheduler.registerImmediate("org.test.before")
        try await scheduler.registerImmediate("org.test.after")
        try await scheduler.submit(request("org.test.before"))
        #expect(await early.waitFor(.completed(identifier: "org.test.before", success: true)))
        let late = EventRecorder(scheduler)
        try await scheduler.submit(request("org.test.after"))
        #expect(await late.waitFor(.completed(identifier: "org.test.after", success: true)))
        #expect(late.all == [
            .started(identifier: "org.test.after"), .completed(identifier: "org.test.after", success: true),
        ])
        #expect(await early.waitUntil { $0.count == 4 })
    }
}
