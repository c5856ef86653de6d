import ContinuedProcessing
import Testing

@Suite("Stress")
struct StressTests {
    @Test func thousandTasksFromEightSubmittersAllEndOnceWithinLimits() async throws {
        let submitters = 8
        let perSubmitter = 125
        let scheduler = makeScheduler(permitted: ["org.stress.*"]) { configuration in
            configuration.maxConcurrentTasks = 4
            configuration.maxConcurrentGPUTasks = 1
            configuration.maxPendingRequests = submitters * perSubmitter
            configuration.resourceProbe = { .gpu }
        }
        let events = EventRecorder(scheduler)
        let running = Counter()
        let gpuRunning = Counter()
        let runs = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for submitter in 0..<submitters {
                group.addTask {
                    for index in 0..<perSubmitter {
                        let number = submitter * perSubmitter + index
                        let usesGPU = number % 5 == 0
                        let identifier = "org.stress.\(number)"
                        try await scheduler.register(forTaskWithIdentifier: identifier) { task in
                            runs.increment()
                            running.increment()
                            if usesGPU { gpuRunning.increment() }
                            await Task.yield()
                            if usesGPU { gpuRunning.decrement() }
                            running.decrement()
                            if number % 10 == 3 { return }  // Forgets setTaskCompleted: failed.
                            task.setTaskCompleted(success: number % 7 != 0)
                        }
                        try await scheduler.submit(request(identifier, resources: usesGPU ? .gpu : []))
                    }
                }
            }
            try await group.waitForAll()
        }
        let total = submitters * perSubmitter
        #expect(await events.waitUntil(timeout: .seconds(120)) { $0.filter(\.isEnd).count >= total })
        let ends = events.all.filter(\.isEnd)
        #expect(ends.count == total)
        #expect(Set(ends.map(\.identifier)).count == total)
        let failed = ends.filter { if case .failed = $0 { true } else { false } }
        #expect(failed.count == total / 10)
        let succeeded = ends.filter { $0 == .completed(identifier: $0.identifier, success: true) }
        #expect(succeeded.count == (0..<total).filter { $0 % 10 != 3 && $0 % 7 != 0 }.count)
        #expect(events.all.filter { if case .started = $0 { true } else { false } }.count == total)
        #expect(runs.value == total)
        #expect(running.maximum <= 4)
        #expect(gpuRunning.maximum <= 1)
        #expect(await scheduler.pendingTaskRequests.isEmpty)
        #expect(await eventually { await scheduler.runningTasks.isEmpty })
    }
}
