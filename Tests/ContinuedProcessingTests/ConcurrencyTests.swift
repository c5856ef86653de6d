import ContinuedProcessing
import Testing

@Suite("Concurrency limits per resource class")
struct ConcurrencyTests {
    @Test func oneGPUTaskAtATimeWhileACPUTaskRunsBeside() async throws {
        let scheduler = makeScheduler { configuration in
            configuration.maxConcurrentTasks = 3
            configuration.maxConcurrentGPUTasks = 1
            configuration.resourceProbe = { .gpu }
        }
        let events = EventRecorder(scheduler)
        let running = Counter()
        let gpuRunning = Counter()
        let gates = ["g1": Gate(), "g2": Gate(), "c1": Gate()]
        for (name, gate) in gates {
            let usesGPU = name.hasPrefix("g")
            try await scheduler.register(forTaskWithIdentifier: "org.test.\(name)") { task in
                running.increment()
                if usesGPU { gpuRunning.increment() }
                await gate.wait()
                if usesGPU { gpuRunning.decrement() }
                running.decrement()
                task.setTaskCompleted(success: true)
            }
        }
        try await scheduler.submit(request("org.test.g1", resources: .gpu))
        try await scheduler.submit(request("org.test.g2", resources: .gpu))
        try await scheduler.submit(request("org.test.c1"))
        // The CPU request passes the GPU request waiting ahead of it.
        #expect(await events.waitFor(.started(identifier: "org.test.c1")))
        #expect(await eventually { running.value == 2 })
        #expect(events.all == [
            .started(identifier: "org.test.g1"),
            .queued(identifier: "org.test.g2", position: 1),
            .started(identifier: "org.test.c1"),
        ])
        gates["g1"]?.open()
        #expect(await events.waitFor(.started(identifier: "org.test.g2")))
        #expect(await eventually { running.value == 2 })
        #expect(gates["c1"]?.opened == false)
        gates["g2"]?.open()
        gates["c1"]?.open()
        #expect(await events.waitUntil { $0.filter(\.isEnd).count == 3 })
        #expect(gpuRunning.maximum == 1)
        #expect(running.maximum == 2)
        #expect(events.index(of: .completed(identifier: "org.test.g1", success: true))
            < events.index(of: .started(identifier: "org.test.g2")))
    }

    @Test func maxConcurrentTasksBoundsAllTasks() async throws {
        let scheduler = makeScheduler { $0.maxConcurrentTasks = 2 }
        let events = EventRecorder(scheduler)
        let running = Counter()
        let gate = Gate()
        for index in 0..<5 {
            try await scheduler.register(forTaskWithIdentifier: "org.test.t\(index)") { task in
                running.increment()
                await gate.wait()
                running.decrement()
                task.setTaskCompleted(success: true)
            }
            try await scheduler.submit(request("org.test.t\(index)"))
        }
        #expect(await eventually { running.value == 2 })
        #expect(await scheduler.pendingTaskRequests.count == 3)
        gate.open()
        #expect(await events.waitUntil { $0.filter(\.isEnd).count == 5 })
        #expect(running.maximum == 2)
    }
}
