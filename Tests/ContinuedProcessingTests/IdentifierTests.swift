import ContinuedProcessing
import Testing

@Suite("Permitted identifiers and registration")
struct IdentifierTests {
    @Test func exactIdentifierRunsItsHandler() async throws {
        let scheduler = makeScheduler(permitted: ["org.kiln.single"])
        let events = EventRecorder(scheduler)
        let runs = Counter()
        try await scheduler.registerImmediate("org.kiln.single", runs: runs)
        try await scheduler.submit(request("org.kiln.single"))
        #expect(await events.waitFor(.completed(identifier: "org.kiln.single", success: true)))
        #expect(runs.value == 1)
    }

    @Test func wildcardAcceptsAnyDynamicSuffix() async throws {
        let scheduler = makeScheduler(permitted: ["org.x.export.*"])
        let events = EventRecorder(scheduler)
        for identifier in ["org.x.export.job42", "org.x.export.a.b", "org.x.export.*"] {
            try await scheduler.registerImmediate(identifier)
            try await scheduler.submit(request(identifier))
            #expect(await events.waitFor(.completed(identifier: identifier, success: true)))
        }
    }

    @Test(arguments: ["org.x.exportX", "org.x.export", "org.x.export.", "org.x.expor.job", "xorg.x.export.job", "org.y.job"])
    func nearMissesAreNotPermitted(identifier: String) async throws {
        let scheduler = makeScheduler(permitted: ["org.x.export.*", "org.y.exact"])
        let events = EventRecorder(scheduler)
        await #expect(throws: TaskSchedulerError.notPermitted) {
            try await scheduler.registerImmediate(identifier)
        }
        await #expect(throws: TaskSchedulerError.notPermitted) {
            try await scheduler.submit(request(identifier))
        }
        // A permitted submission afterwards is the first and only thing observers see.
        try await scheduler.registerImmediate("org.y.exact")
        try await scheduler.submit(request("org.y.exact"))
        #expect(await events.waitFor(.completed(identifier: "org.y.exact", success: true)))
        #expect(events.all.allSatisfy { $0.identifier == "org.y.exact" })
    }

    @Test func registeringTwiceThrows() async throws {
        let scheduler = makeScheduler()
        try await scheduler.registerImmediate("org.test.twice")
        await #expect(throws: TaskSchedulerError.alreadyRegistered) {
            try await scheduler.registerImmediate("org.test.twice")
        }
    }

    @Test func submittingWithoutHandlerThrowsAndEmitsNothing() async throws {
        let scheduler = makeScheduler()
        let events = EventRecorder(scheduler)
        await #expect(throws: TaskSchedulerError.notRegistered) {
            try await scheduler.submit(request("org.test.unregistered"))
        }
        // Registration may come any time before submission: then the same request runs.
        try await scheduler.registerImmediate("org.test.unregistered")
        try await scheduler.submit(request("org.test.unregistered"))
        #expect(await events.waitFor(.completed(identifier: "org.test.unregistered", success: true)))
        #expect(events.all == [
            .started(identifier: "org.test.unregistered"),
            .completed(identifier: "org.test.unregistered", success: true),
        ])
    }
}
