import ContinuedProcessing
import Testing

@Suite("Submission: strategies, queue, limits, resources")
struct SubmissionTests {
    @Test func failIsRefusedWhileTheSlotIsBusyAndQueueStartsAfter() async throws {
        let scheduler = makeScheduler()
        let events = EventRecorder(scheduler)
        let gate = Gate()
        let failRuns = Counter()
        try await scheduler.registerGated("org.test.a", gate: gate)
        try await scheduler.registerImmediate("org.test.b", runs: failRuns)
        try await scheduler.registerImmediate("org.test.c")
        try await scheduler.submit(request("org.test.a"))
        await #expect(throws: TaskSchedulerError.immediateRunIneligible) {
            try await scheduler.submit(request("org.test.b", strategy: .fail))
        }
        try await scheduler.submit(request("org.test.c", strategy: .queue))
        #expect(await scheduler.pendingTaskRequests.map(\.identifier) == ["org.test.c"])
        gate.open()
        #expect(await events.waitFor(.completed(identifier: "org.test.c", success: true)))
        #expect(events.all == [
            .started(identifier: "org.test.a"),
            .queued(identifier: "org.test.c", position: 1),
            .completed(identifier: "org.test.a", success: true),
            .started(identifier: "org.test.c"),
            .completed(identifier: "org.test.c", success: true),
        ])
        #expect(failRuns.value == 0)
    }

    @Test func failStartsWhenASlotIsFree() async throws {
        let scheduler = makeScheduler()
        let events = EventRecorder(scheduler)
        try await scheduler.registerImmediate("org.test.free")
        try await scheduler.submit(request("org.test.free", strategy: .fail))
        #expect(await events.waitFor(.completed(identifier: "org.test.free", success: true)))
    }

    @Test func tooManyPendingRequests() async throws {
        let scheduler = makeScheduler { $0.maxPendingRequests = 2 }
        let events = EventRecorder(scheduler)
        let gate = Gate()
        for name in ["a", "b", "c", "d"] {
            try await scheduler.registerGated("org.test.\(name)", gate: gate)
        }
        try await scheduler.submit(request("org.test.a"))
        try await scheduler.submit(request("org.test.b"))
        try await scheduler.submit(request("org.test.c"))
        await #expect(throws: TaskSchedulerError.tooManyPendingTaskRequests) {
            try await scheduler.submit(request("org.test.d"))
        }
        #expect(await scheduler.pendingTaskRequests.map(\.identifier) == ["org.test.b", "org.test.c"])
        gate.open()
        #expect(await events.waitFor(.completed(identifier: "org.test.c", success: true)))
        #expect(events.events(for: "org.test.d").isEmpty)
    }

    @Test func gpuRequestIsUnavailableWithoutGPUAndNeverRuns() async throws {
        let scheduler = makeScheduler { $0.resourceProbe = { [] } }
        let events = EventRecorder(scheduler)
        let gpuRuns = Counter()
        #expect(await scheduler.supportedResources == [])
        try await scheduler.registerImmediate("org.test.gpu", runs: gpuRuns)
        await #expect(throws: TaskSchedulerError.unavailable) {
            try await scheduler.submit(request("org.test.gpu", resources: .gpu))
        }
        // A CPU task submitted afterwards completes; by then the GPU one would have started.
        try await scheduler.registerImmediate("org.test.cpu")
        try await scheduler.submit(request("org.test.cpu"))
        #expect(await events.waitFor(.completed(identifier: "org.test.cpu", success: true)))
        #expect(gpuRuns.value == 0)
        #expect(events.events(for: "org.test.gpu").isEmpty)
        #expect(await scheduler.pendingTaskRequests.isEmpty)
    }

    @Test func gpuRequestIsAcceptedWhenTheProbeReportsAGPU() async throws {
        let scheduler = makeScheduler { $0.resourceProbe = { .gpu } }
        let events = EventRecorder(scheduler)
        #expect(await scheduler.supportedResources == .gpu)
        try await scheduler.registerImmediate("org.test.gpu")
        try await scheduler.submit(request("org.test.gpu", resources: .gpu))
        #expect(await events.waitFor(.completed(identifier: "org.test.gpu", success: true)))
    }

    @Test func queuedPositionsAreOneBasedAndStartInOrder() async throws {
        let scheduler = makeScheduler()
        let events = EventRecorder(scheduler)
        let gate = Gate()
        try await scheduler.registerGated("org.test.running", gate: gate)
        try await scheduler.submit(request("org.test.running"))
        for name in ["p1", "p2", "p3"] {
            try await scheduler.registerImmediate("org.test.\(name)")
            try await scheduler.submit(request("org.test.\(name)"))
        }
        #expect(await events.waitFor(.queued(identifier: "org.test.p3", position: 3)))
        #expect(events.all.filter { if case .queued = $0 { true } else { false } } == [
            .queued(identifier: "org.test.p1", position: 1),
            .queued(identifier: "org.test.p2", position: 2),
            .queued(identifier: "org.test.p3", position: 3),
        ])
        #expect(await scheduler.pendingTaskRequests.map(\.identifier) == ["org.test.p1", "org.test.p2", "org.test.p3"])
        gate.open()
        #expect(await events.waitFor(.completed(identifier: "org.test.p3", success: true)))
        let starts = events.all.compactMap { if case .started(let id) = $0 { id } else { nil } }
        #expect(starts == ["org.test.running", "org.test.p1", "org.test.p2", "org.test.p3"])
    }

    @Test func rejectedSubmissionsEmitNoEvent() async throws {
        let scheduler = makeScheduler(permitted: ["org.test.*"]) {
            $0.maxPendingRequests = 1
            $0.resourceProbe = { [] }
        }
        let events = EventRecorder(scheduler)
        let gate = Gate()
        try await scheduler.registerGated("org.test.busy", gate: gate)
        try await scheduler.registerGated("org.test.waiting", gate: gate)
        try await scheduler.registerImmediate("org.test.rejected")
        try await scheduler.submit(request("org.test.busy"))
        try await scheduler.submit(request("org.test.waiting"))
        let rejected: [(ContinuedProcessingTaskRequest, TaskSchedulerError)] = [
            (request("com.other.job"), .notPermitted),
            (request("org.test.nohandler"), .notRegistered),
            (request("org.test.rejected", resources: .gpu), .unavailable),
            (request("org.test.rejected", strategy: .fail), .immediateRunIneligible),
            (request("org.test.rejected"), .tooManyPendingTaskRequests),
        ]
        for (submission, error) in rejected {
            await #expect(throws: error) { try await scheduler.submit(submission) }
        }
        gate.open()
        #expect(await events.waitFor(.completed(identifier: "org.test.waiting", success: true)))
        #expect(events.all.allSatisfy { ["org.test.busy", "org.test.waiting"].contains($0.identifier) })
    }

    @Test func duplicateOfARunningTaskIsRefusedUnderFailAndIgnoredUnderQueue() async throws {
        let scheduler = makeScheduler { $0.maxConcurrentTasks = 2 }
        let events = EventRecorder(scheduler)
        let gate = Gate()
        let runs = Counter()
        try await scheduler.registerGated("org.test.dup", gate: gate, runs: runs)
        try await scheduler.submit(request("org.test.dup"))
        await #expect(throws: TaskSchedulerError.immediateRunIneligible) {
            try await scheduler.submit(request("org.test.dup", strategy: .fail))
        }
        try await scheduler.submit(request("org.test.dup", strategy: .queue))
        #expect(await scheduler.pendingTaskRequests.isEmpty)
        gate.open()
        #expect(await events.waitFor(.completed(identifier: "org.test.dup", success: true)))
        #expect(runs.value == 1)
        #expect(events.events(for: "org.test.dup") == [
            .started(identifier: "org.test.dup"), .completed(identifier: "org.test.dup", success: true),
        ])
        // Once it ended, the same identifier may run again.
        try await scheduler.submit(request("org.test.dup", strategy: .fail))
        #expect(await events.waitUntil { $0.filter(\.isEnd).count == 2 })
        #expect(runs.value == 2)
    }

    @Test func duplicateOfAPendingRequestIsRefusedUnderFailAndIgnoredUnderQueue() async throws {
        let scheduler = makeScheduler()
        let events = EventRecorder(scheduler)
        let gate = Gate()
        let runs = Counter()
        try await scheduler.registerGated("org.test.busy", gate: gate)
        try await scheduler.registerImmediate("org.test.pending", runs: runs)
        try await scheduler.submit(request("org.test.busy"))
        try await scheduler.submit(request("org.test.pending"))
        await #expect(throws: TaskSchedulerError.immediateRunIneligible) {
            try await scheduler.submit(request("org.test.pending", strategy: .fail))
        }
        try await scheduler.submit(request("org.test.pending"))
        #expect(await scheduler.pendingTaskRequests.map(\.identifier) == ["org.test.pending"])
        gate.open()
        #expect(await events.waitFor(.completed(identifier: "org.test.pending", success: true)))
        #expect(runs.value == 1)
        #expect(events.events(for: "org.test.pending").filter { if case .queued = $0 { true } else { false } }.count == 1)
    }

    @Test func cancellingAPendingRequestRemovesItAndItNeverRuns() async throws {
        let scheduler = makeScheduler()
        let events = EventRecorder(scheduler)
        let gate = Gate()
        let runs = Counter()
        try await scheduler.registerGated("org.test.busy", gate: gate)
        try await scheduler.registerImmediate("org.test.pending", runs: runs)
        try await scheduler.submit(request("org.test.busy"))
        try await scheduler.submit(request("org.test.pending"))
        await scheduler.cancel(taskRequestWithIdentifier: "org.test.pending")
        #expect(await scheduler.pendingTaskRequests.isEmpty)
        gate.open()
        #expect(await events.waitFor(.completed(identifier: "org.test.busy", success: true)))
        #expect(await scheduler.runningTasks.isEmpty)
        #expect(runs.value == 0)
        #expect(events.events(for: "org.test.pending") == [
            .queued(identifier: "org.test.pending", position: 1),
            .expiring(identifier: "org.test.pending", reason: .userCancelled),
        ])
    }

    @Test func cancellingARunningTaskExpiresItAsUserCancelled() async throws {
        let scheduler = makeScheduler()
        let events = EventRecorder(scheduler)
        let expirations = Counter()
        try await scheduler.registerCooperative("org.test.run", expirations: expirations)
        try await scheduler.submit(request("org.test.run"))
        #expect(await events.waitFor(.started(identifier: "org.test.run")))
        await scheduler.cancel(taskRequestWithIdentifier: "org.test.run")
        #expect(await events.waitFor(.completed(identifier: "org.test.run", success: false)))
        #expect(expirations.value == 1)
        #expect(events.events(for: "org.test.run") == [
            .started(identifier: "org.test.run"),
            .expiring(identifier: "org.test.run", reason: .userCancelled),
            .completed(identifier: "org.test.run", success: false),
        ])
    }
}
