import ContinuedProcessing
import Testing

@Suite("expireAll")
struct ExpireAllTests {
    @Test func expiresRunningTasksAndDropsPendingRequests() async throws {
        let scheduler = makeScheduler { $0.maxConcurrentTasks = 2 }
        let events = EventRecorder(scheduler)
        let expirations = Counter()
        let pendingRuns = Counter()
        try await scheduler.registerCooperative("org.test.a", expirations: expirations)
        try await scheduler.registerCooperative("org.test.b", expirations: expirations)
        try await scheduler.registerImmediate("org.test.c", runs: pendingRuns)
        try await scheduler.registerImmediate("org.test.d", runs: pendingRuns)
        for name in ["a", "b", "c", "d"] {
            try await scheduler.submit(request("org.test.\(name)"))
        }
        #expect(await events.waitFor(.queued(identifier: "org.test.d", position: 2)))
        await scheduler.expireAll(reason: .systemTermination)
        #expect(await scheduler.pendingTaskRequests.isEmpty)
        #expect(await events.waitUntil { $0.filter(\.isEnd).count == 2 })
        let expiring = events.all.filter { if case .expiring = $0 { true } else { false } }
        #expect(expiring == ["a", "b", "c", "d"].map { .expiring(identifier: "org.test.\($0)", reason: .systemTermination) })
        #expect(events.contains(.completed(identifier: "org.test.a", success: false)))
        #expect(events.contains(.completed(identifier: "org.test.b", success: false)))
        #expect(expirations.value == 2)
        #expect(pendingRuns.value == 0)
        #expect(events.events(for: "org.test.c").allSatisfy { if case .started = $0 { false } else { true } })
    }

    @Test func expiringTwiceCallsTheHandlerOnce() async throws {
        let scheduler = makeScheduler()
        let events = EventRecorder(scheduler)
        let calls = Counter()
        let release = Gate()
        try await scheduler.register(forTaskWithIdentifier: "org.test.once") { task in
            task.expirationHandler = { calls.increment() }
            await release.wait()
            task.setTaskCompleted(success: false)
        }
        try await scheduler.submit(request("org.test.once"))
        #expect(await events.waitFor(.started(identifier: "org.test.once")))
        await scheduler.expireAll(reason: .userCancelled)
        await scheduler.expireAll(reason: .systemTermination)
        await scheduler.cancel(taskRequestWithIdentifier: "org.test.once")
        release.open()
        #expect(await events.waitFor(.completed(identifier: "org.test.once", success: false)))
        #expect(calls.value == 1)
        #expect(events.all.filter { if case .expiring = $0 { true } else { false } }
            == [.expiring(identifier: "org.test.once", reason: .userCancelled)])
    }

    /// A request submitted after expireAll (a Ctrl-C between a program's lifecycle start and its submission) starts
    /// expired: before, the expiry had found nothing to expire, and the task then ran to its end.
    @Test func aRequestSubmittedAfterExpireAllStartsExpired() async throws {
        let scheduler = makeScheduler()
        let events = EventRecorder(scheduler)
        let expirations = Counter()
        try await scheduler.registerCooperative("org.test.late", expirations: expirations)
        await scheduler.expireAll(reason: .userCancelled)
        try await scheduler.submit(request("org.test.late"))
        #expect(await events.waitFor(.completed(identifier: "org.test.late", success: false)))
        #expect(events.contains(.expiring(identifier: "org.test.late", reason: .userCancelled)))
        #expect(expirations.value == 1)
    }
}
