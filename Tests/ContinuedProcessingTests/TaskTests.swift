import ContinuedProcessing
import Foundation
import Testing

@Suite("The task: progress, expiration handler, title, completion")
struct TaskTests {
    @Test func cancellingProgressExpiresTheTaskOnceAsUserCancelled() async throws {
        let scheduler = makeScheduler()
        let events = EventRecorder(scheduler)
        let expirations = Counter()
        let seen = Recorded<ContinuedProcessingTask>()
        try await scheduler.register(forTaskWithIdentifier: "org.test.cancel") { task in
            seen.append(task)
            let gate = Gate()
            task.expirationHandler = {
                expirations.increment()
                gate.open()
            }
            task.progress.totalUnitCount = 10
            task.progress.cancel()
            await gate.wait()
            // Cancelling again, and through the scheduler, must not call the handler again.
            task.progress.cancel()
            task.setTaskCompleted(success: false)
        }
        try await scheduler.submit(request("org.test.cancel"))
        #expect(await events.waitFor(.completed(identifier: "org.test.cancel", success: false)))
        await scheduler.cancel(taskRequestWithIdentifier: "org.test.cancel")
        try await Task.sleep(for: .milliseconds(100))
        #expect(expirations.value == 1)
        #expect(seen.all.first?.progress.isCancelled == true)
        #expect(seen.all.first?.expirationReason == .userCancelled)
        #expect(events.events(for: "org.test.cancel") == [
            .started(identifier: "org.test.cancel"),
            .expiring(identifier: "org.test.cancel", reason: .userCancelled),
            .completed(identifier: "org.test.cancel", success: false),
        ])
    }

    @Test func taskCarriesTheRequestAndIsProgressReporting() async throws {
        let scheduler = makeScheduler()
        let events = EventRecorder(scheduler)
        let seen = Recorded<String>()
        try await scheduler.register(forTaskWithIdentifier: "org.test.fields") { task in
            let reporting: any ProgressReporting = task
            seen.append("\(task.identifier)|\(task.title)|\(task.subtitle)|\(reporting.progress === task.progress)")
            task.setTaskCompleted(success: true)
        }
        var submission = ContinuedProcessingTaskRequest(identifier: "org.test.fields", title: "Export", subtitle: "3 files")
        #expect(submission.strategy == .queue)
        #expect(submission.requiredResources == [])
        submission.strategy = .fail
        try await scheduler.submit(submission)
        #expect(await events.waitFor(.completed(identifier: "org.test.fields", success: true)))
        #expect(seen.all == ["org.test.fields|Export|3 files|true"])
    }

    @Test func updateTitleEmitsTitleChanged() async throws {
        let scheduler = makeScheduler()
        let events = EventRecorder(scheduler)
        let titles = Recorded<String>()
        try await scheduler.register(forTaskWithIdentifier: "org.test.title") { task in
            task.updateTitle("Exporting", subtitle: "2 of 5")
            titles.append("\(task.title)/\(task.subtitle)")
            task.setTaskCompleted(success: true)
        }
        try await scheduler.submit(request("org.test.title"))
        #expect(await events.waitFor(.completed(identifier: "org.test.title", success: true)))
        #expect(events.all == [
            .started(identifier: "org.test.title"),
            .titleChanged(identifier: "org.test.title", title: "Exporting", subtitle: "2 of 5"),
            .completed(identifier: "org.test.title", success: true),
        ])
        #expect(titles.all == ["Exporting/2 of 5"])
    }

    @Test func secondSetTaskCompletedIsIgnoredAndLogged() async throws {
        let log = Recorded<String>()
        let scheduler = makeScheduler { configuration in
            configuration.log = { log.append($0) }
        }
        let events = EventRecorder(scheduler)
        let secondCallDone = Gate()
        try await scheduler.register(forTaskWithIdentifier: "org.test.twice") { task in
            task.setTaskCompleted(success: true)
            task.setTaskCompleted(success: false)
            secondCallDone.open()
        }
        try await scheduler.submit(request("org.test.twice"))
        #expect(await eventually { secondCallDone.opened })
        #expect(await events.waitFor(.completed(identifier: "org.test.twice", success: true)))
        #expect(events.all.filter(\.isEnd) == [.completed(identifier: "org.test.twice", success: true)])
        #expect(log.all.count == 1)
        #expect(log.all.first?.contains("org.test.twice") == true)
    }

    @Test func handlerReturningWithoutCompletionFailsAndFreesTheSlot() async throws {
        let scheduler = makeScheduler()
        let events = EventRecorder(scheduler)
        try await scheduler.register(forTaskWithIdentifier: "org.test.forgetful") { _ in }
        try await scheduler.registerImmediate("org.test.next")
        try await scheduler.submit(request("org.test.forgetful"))
        try await scheduler.submit(request("org.test.next"))
        #expect(await events.waitFor(.completed(identifier: "org.test.next", success: true)))
        let ends = events.all.filter(\.isEnd)
        #expect(ends.count == 2)
        guard case .failed(let identifier, let message) = ends.first else {
            Issue.record("expected .failed first, got \(ends)")
            return
        }
        #expect(identifier == "org.test.forgetful")
        #expect(message.contains("setTaskCompleted"))
    }

    @Test func expirationHandlerSetAfterExpirationIsCalledOnce() async throws {
        let scheduler = makeScheduler()
        let events = EventRecorder(scheduler)
        let expired = Gate()
        let calls = Counter()
        try await scheduler.register(forTaskWithIdentifier: "org.test.late") { task in
            while task.expirationReason == nil { try? await Task.sleep(for: .milliseconds(2)) }
            task.expirationHandler = {
                calls.increment()
                expired.open()
            }
            await expired.wait()
            task.expirationHandler = { calls.increment() }  // Replacing it must not call again.
            task.setTaskCompleted(success: false)
        }
        try await scheduler.submit(request("org.test.late"))
        #expect(await events.waitFor(.started(identifier: "org.test.late")))
        await scheduler.cancel(taskRequestWithIdentifier: "org.test.late")
        #expect(await events.waitFor(.completed(identifier: "org.test.late", success: false)))
        #expect(calls.value == 1)
    }
}
