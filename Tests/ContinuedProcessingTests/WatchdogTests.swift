import ContinuedProcessing
import Foundation
import Testing

@Suite("Watchdog: stalls and the slow-progress question")
struct WatchdogTests {
    @Test func stalledTaskExpiresWithinTheStallIntervalPlusOneSecond() async throws {
        let stall = Duration.milliseconds(300)
        let scheduler = makeScheduler { $0.stallInterval = stall }
        let events = EventRecorder(scheduler)
        let times = Recorded<ContinuousClock.Instant>()
        try await scheduler.register(forTaskWithIdentifier: "org.test.stalled") { task in
            times.append(.now)
            let gate = Gate()
            task.expirationHandler = {
                times.append(.now)
                gate.open()
            }
            task.progress.totalUnitCount = 10
            task.progress.completedUnitCount = 1  // Then never again: the stall counts from here.
            await gate.wait()
            task.setTaskCompleted(success: false)
        }
        try await scheduler.submit(request("org.test.stalled"))
        #expect(await events.waitFor(.completed(identifier: "org.test.stalled", success: false)))
        #expect(events.contains(.expiring(identifier: "org.test.stalled", reason: .stalled)))
        let recorded = times.all
        try #require(recorded.count == 2)
        let waited = recorded[1] - recorded[0]
        #expect(waited >= stall, "expired after \(waited)")
        #expect(waited <= stall + .seconds(1), "expired after \(waited)")
    }

    /// A task its program holds (a person paused it) does not stall however long the pause; once
    /// resumed, the stall interval counts again from the resume.
    @Test func suspendedTaskDoesNotStallUntilResumed() async throws {
        let stall = Duration.milliseconds(300)
        let scheduler = makeScheduler { $0.stallInterval = stall }
        let events = EventRecorder(scheduler)
        let expiredAt = Recorded<ContinuousClock.Instant>()
        // Suspended before it starts (a pause while queued): the watchdog holds from its start.
        await scheduler.setSuspended(true, taskWithIdentifier: "org.test.paused")
        try await scheduler.register(forTaskWithIdentifier: "org.test.paused") { task in
            let gate = Gate()
            task.expirationHandler = {
                expiredAt.append(.now)
                gate.open()
            }
            task.progress.totalUnitCount = 10
            task.progress.completedUnitCount = 1  // Then never again.
            await gate.wait()
            task.setTaskCompleted(success: false)
        }
        try await scheduler.submit(request("org.test.paused"))
        try await Task.sleep(for: stall * 5)
        #expect(events.all == [.started(identifier: "org.test.paused")], "expired while suspended: \(events.all)")
        let resumedAt = ContinuousClock.now
        await scheduler.setSuspended(false, taskWithIdentifier: "org.test.paused")
        #expect(await events.waitFor(.completed(identifier: "org.test.paused", success: false)))
        #expect(events.contains(.expiring(identifier: "org.test.paused", reason: .stalled)))
        let waited = try #require(expiredAt.all.first) - resumedAt
        // Counted from the resume: not sooner (counted from the start, it would expire at once). The upper bound
        // only says it does expire; 1 s beyond the interval failed on a loaded machine (tests beside it).
        #expect(waited >= stall && waited <= stall + .seconds(10), "expired \(waited) after the resume")
    }

    @Test func progressingTaskNeverStalls() async throws {
        let scheduler = makeScheduler { $0.stallInterval = .milliseconds(400) }
        let events = EventRecorder(scheduler)
        try await scheduler.register(forTaskWithIdentifier: "org.test.steady") { task in
            task.progress.totalUnitCount = 60
            for step in 1...60 where task.expirationReason == nil {
                try? await Task.sleep(for: .milliseconds(20))
                task.progress.completedUnitCount = Int64(step)
            }
            task.setTaskCompleted(success: task.expirationReason == nil)
        }
        try await scheduler.submit(request("org.test.steady"))
        #expect(await events.waitUntil { $0.contains(where: \.isEnd) })
        #expect(events.all == [
            .started(identifier: "org.test.steady"),
            .completed(identifier: "org.test.steady", success: true),
        ])
    }

    @Test func slowTaskIsAskedAndExpiresWhenDeclined() async throws {
        let snapshots = Recorded<TaskSnapshot>()
        let scheduler = makeScheduler { configuration in
            configuration.expectedDuration = .milliseconds(300)
            configuration.shouldContinueWhenSlow = { snapshot in
                snapshots.append(snapshot)
                return false
            }
        }
        let events = EventRecorder(scheduler)
        try await scheduler.register(forTaskWithIdentifier: "org.test.slow") { task in
            task.progress.totalUnitCount = 100
            var step: Int64 = 0
            while step < 100, task.expirationReason == nil {
                try? await Task.sleep(for: .milliseconds(20))
                step += 1
                task.progress.completedUnitCount = step
            }
            task.setTaskCompleted(success: task.expirationReason == nil)
        }
        try await scheduler.submit(request("org.test.slow"))
        #expect(await events.waitFor(.completed(identifier: "org.test.slow", success: false)))
        #expect(events.all == [
            .started(identifier: "org.test.slow"),
            .slowProgress(identifier: "org.test.slow"),
            .expiring(identifier: "org.test.slow", reason: .declinedWhenSlow),
            .completed(identifier: "org.test.slow", success: false),
        ])
        let snapshot = try #require(snapshots.all.first)
        #expect(snapshots.all.count == 1)
        #expect(snapshot.identifier == "org.test.slow")
        #expect(snapshot.fractionCompleted > 0 && snapshot.fractionCompleted < 1)
        let remaining = try #require(snapshot.estimatedRemaining)
        #expect(snapshot.elapsed + remaining > .milliseconds(300))
    }

    @Test func slowTaskContinuesWhenAllowedAndIsAskedOnce() async throws {
        let asked = Counter()
        let scheduler = makeScheduler { configuration in
            configuration.expectedDuration = .milliseconds(100)
            configuration.shouldContinueWhenSlow = { _ in
                asked.increment()
                return true
            }
        }
        let events = EventRecorder(scheduler)
        let askedBeforeProgress = Recorded<Int>()
        try await scheduler.register(forTaskWithIdentifier: "org.test.slowok") { task in
            task.progress.totalUnitCount = 40
            // No progress yet, although already past the expected duration: no question.
            try? await Task.sleep(for: .milliseconds(400))
            askedBeforeProgress.append(asked.value)
            for step in 1...40 {
                try? await Task.sleep(for: .milliseconds(15))
                task.progress.completedUnitCount = Int64(step)
            }
            task.setTaskCompleted(success: true)
        }
        try await scheduler.submit(request("org.test.slowok"))
        #expect(await events.waitFor(.completed(identifier: "org.test.slowok", success: true)))
        #expect(askedBeforeProgress.all == [0])
        #expect(asked.value == 1)
        #expect(events.all == [
            .started(identifier: "org.test.slowok"),
            .slowProgress(identifier: "org.test.slowok"),
            .completed(identifier: "org.test.slowok", success: true),
        ])
    }

    @Test func fastTaskIsNeverAsked() async throws {
        let asked = Counter()
        let scheduler = makeScheduler { configuration in
            configuration.expectedDuration = .seconds(20)
            configuration.shouldContinueWhenSlow = { _ in
                asked.increment()
                return false
            }
        }
        let events = EventRecorder(scheduler)
        try await scheduler.register(forTaskWithIdentifier: "org.test.fast") { task in
            task.progress.totalUnitCount = 10
            for step in 1...10 {
                try? await Task.sleep(for: .milliseconds(10))
                task.progress.completedUnitCount = Int64(step)
            }
            task.setTaskCompleted(success: true)
        }
        try await scheduler.submit(request("org.test.fast"))
        #expect(await events.waitFor(.completed(identifier: "org.test.fast", success: true)))
        #expect(asked.value == 0)
    }

    @Test func snapshotOfARunningTask() async throws {
        let scheduler = makeScheduler()
        let events = EventRecorder(scheduler)
        let gate = Gate()
        try await scheduler.register(forTaskWithIdentifier: "org.test.snap") { task in
            task.progress.totalUnitCount = 4
            task.progress.completedUnitCount = 1
            await gate.wait()
            task.setTaskCompleted(success: true)
        }
        try await scheduler.submit(request("org.test.snap"))
        #expect(await eventually { await scheduler.snapshot(ofTaskWithIdentifier: "org.test.snap")?.fractionCompleted == 0.25 })
        let snapshot = try #require(await scheduler.snapshot(ofTaskWithIdentifier: "org.test.snap"))
        #expect(snapshot.estimatedRemaining != nil)
        #expect(await scheduler.runningTasks.map(\.identifier) == ["org.test.snap"])
        gate.open()
        #expect(await events.waitFor(.completed(identifier: "org.test.snap", success: true)))
        #expect(await scheduler.snapshot(ofTaskWithIdentifier: "org.test.snap") == nil)
    }
}
