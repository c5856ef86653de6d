import ContinuedProcessing
import Testing

@Suite("Critical work and the expiration grace")
struct CriticalWorkTests {
    @Test func criticalSectionOpenAtExpirationFinishesItsBody() async throws {
        let scheduler = makeScheduler { configuration in
            configuration.expirationGrace = .milliseconds(200)
            configuration.criticalBudget = .seconds(15)
        }
        let events = EventRecorder(scheduler)
        let entered = Gate()
        let finished = Counter()
        try await scheduler.register(forTaskWithIdentifier: "org.test.critical") { task in
            let expired = Gate()
            task.expirationHandler = { expired.open() }
            await task.withCriticalWork("rename output") {
                entered.open()
                await expired.wait()
                // Longer than the grace: the open section holds the task alive.
                try? await Task.sleep(for: .milliseconds(700))
                finished.increment()
            }
            task.setTaskCompleted(success: false)
        }
        try await scheduler.submit(request("org.test.critical"))
        #expect(await eventually { entered.opened })
        await scheduler.cancel(taskRequestWithIdentifier: "org.test.critical")
        #expect(await events.waitUntil { $0.contains(where: \.isEnd) })
        #expect(finished.value == 1)
        #expect(events.all == [
            .started(identifier: "org.test.critical"),
            .expiring(identifier: "org.test.critical", reason: .userCancelled),
            .completed(identifier: "org.test.critical", success: false),
        ])
    }

    @Test func criticalTimeRemainingIsTheFullBudgetUntilExpirationThenCountsDown() async throws {
        let budget = Duration.seconds(10)
        let scheduler = makeScheduler { $0.criticalBudget = budget }
        let events = EventRecorder(scheduler)
        let remaining = Recorded<Duration>()
        try await scheduler.register(forTaskWithIdentifier: "org.test.budget") { task in
            let expired = Gate()
            task.expirationHandler = { expired.open() }
            remaining.append(task.criticalTimeRemaining)
            await expired.wait()
            try? await Task.sleep(for: .milliseconds(50))
            remaining.append(task.criticalTimeRemaining)
            task.setTaskCompleted(success: false)
        }
        try await scheduler.submit(request("org.test.budget"))
        #expect(await eventually { remaining.all.count == 1 })
        await scheduler.cancel(taskRequestWithIdentifier: "org.test.budget")
        #expect(await events.waitFor(.completed(identifier: "org.test.budget", success: false)))
        let values = remaining.all
        try #require(values.count == 2)
        #expect(values[0] == budget)
        #expect(values[1] < budget - .milliseconds(40))
        #expect(values[1] > .zero)
    }

    @Test func graceRunningOutFailsTheTaskAndFreesItsSlot() async throws {
        let log = Recorded<String>()
        let scheduler = makeScheduler { configuration in
            configuration.expirationGrace = .milliseconds(200)
            configuration.log = { log.append($0) }
        }
        let events = EventRecorder(scheduler)
        let returned = Counter()
        try await scheduler.register(forTaskWithIdentifier: "org.test.stubborn") { task in
            await Gate().wait()  // Ignores expiration; returns only when its Swift task is cancelled.
            returned.increment()
            task.setTaskCompleted(success: true)  // Too late: ignored.
        }
        try await scheduler.registerImmediate("org.test.next")
        try await scheduler.submit(request("org.test.stubborn"))
        try await scheduler.submit(request("org.test.next"))
        #expect(await events.waitFor(.started(identifier: "org.test.stubborn")))
        await scheduler.cancel(taskRequestWithIdentifier: "org.test.stubborn")
        #expect(await events.waitFor(.completed(identifier: "org.test.next", success: true)))
        let stubborn = events.events(for: "org.test.stubborn")
        try #require(stubborn.count == 3)
        #expect(stubborn[1] == .expiring(identifier: "org.test.stubborn", reason: .userCancelled))
        guard case .failed(_, let message) = stubborn[2] else {
            Issue.record("expected .failed, got \(stubborn[2])")
            return
        }
        #expect(message.contains("grace"))
        #expect(events.index(of: stubborn[2]) < events.index(of: .started(identifier: "org.test.next")))
        #expect(await eventually { returned.value == 1 })
        #expect(await eventually { log.all.contains { $0.contains("org.test.stubborn") } })
    }

    @Test func openCriticalSectionExtendsTheGraceOnlyUpToTheBudget() async throws {
        let budget = Duration.milliseconds(600)
        let scheduler = makeScheduler { configuration in
            configuration.expirationGrace = .milliseconds(100)
            configuration.criticalBudget = budget
        }
        let events = EventRecorder(scheduler)
        let entered = Gate()
        try await scheduler.register(forTaskWithIdentifier: "org.test.overrun") { task in
            await task.withCriticalWork("journal") {
                entered.open()
                try? await Task.sleep(for: .seconds(20))  // Far past the budget.
            }
            task.setTaskCompleted(success: false)
        }
        try await scheduler.registerImmediate("org.test.after")
        try await scheduler.submit(request("org.test.overrun"))
        try await scheduler.submit(request("org.test.after"))
        #expect(await eventually { entered.opened })
        let expiredAt = ContinuousClock.now
        await scheduler.cancel(taskRequestWithIdentifier: "org.test.overrun")
        #expect(await events.waitUntil { $0.contains { $0.identifier == "org.test.overrun" && $0.isEnd } })
        let waited = ContinuousClock.now - expiredAt
        #expect(waited >= budget - .milliseconds(50), "failed after \(waited)")
        #expect(waited < .seconds(10), "failed after \(waited)")
        let end = events.events(for: "org.test.overrun").last
        guard case .failed(_, let message) = end else {
            Issue.record("expected .failed, got \(String(describing: end))")
            return
        }
        #expect(message.contains("journal"))
        #expect(await events.waitFor(.completed(identifier: "org.test.after", success: true)))
    }
}
