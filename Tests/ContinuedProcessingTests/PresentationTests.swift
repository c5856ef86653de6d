import ContinuedProcessing
import Testing

@Suite("presentation")
struct PresentationTests {
    /// The task's events, folded into a presentation, give its state and titles; other tasks' events change nothing.
    @Test func eventsFoldIntoThePresentation() {
        var p = TaskPresentation(identifier: "org.test.p", title: "Exporting", subtitle: "3 images")
        #expect(p.state == .queued(position: 1))
        let steps: [(TaskEvent, changes: Bool)] = [
            (.queued(identifier: "org.test.p", position: 2), true),
            (.started(identifier: "org.test.other"), false),
            (.started(identifier: "org.test.p"), true),
            (.titleChanged(identifier: "org.test.p", title: "T", subtitle: "S"), true),
            (.slowProgress(identifier: "org.test.p"), false),
            (.expiring(identifier: "org.test.p", reason: .userCancelled), true),
        ]
        var states: [TaskPresentation.State] = []
        for (event, changes) in steps {
            let changed = p.apply(event)
            #expect(changed == changes, "\(event)")
            states.append(p.state)
        }
        #expect(states == [.queued(position: 2), .queued(position: 2), .running, .running, .running,
                           .stopping(.userCancelled)])
        #expect(p.title == "T" && p.subtitle == "S")
        p.apply(.completed(identifier: "org.test.p", success: false))
        #expect(p.state == .ended(success: false))
        var failed = TaskPresentation(identifier: "org.test.f", title: "", subtitle: "")
        failed.apply(.failed(identifier: "org.test.f", message: "no setTaskCompleted"))
        #expect(failed.state == .ended(success: false))
    }

    /// A presenter's Cancel expires the running task as the user's cancel does.
    @Test func theSchedulersActionsCancelAsTheUserDoes() async throws {
        let scheduler = makeScheduler()
        let events = EventRecorder(scheduler)
        let expirations = Counter()
        try await scheduler.registerCooperative("org.test.view", expirations: expirations)
        try await scheduler.submit(request("org.test.view"))
        #expect(await events.waitFor(.started(identifier: "org.test.view")))
        scheduler.actions(forTaskWithIdentifier: "org.test.view").cancel()
        #expect(await events.waitFor(.expiring(identifier: "org.test.view", reason: .userCancelled)))
        #expect(await events.waitFor(.completed(identifier: "org.test.view", success: false)))
        #expect(expirations.value == 1)
    }
}
