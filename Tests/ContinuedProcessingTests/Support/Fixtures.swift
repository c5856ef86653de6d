import ContinuedProcessing

/// A scheduler permitting `org.test.*`, with test-friendly settings changed by `configure`.
func makeScheduler(
    permitted: [String] = ["org.test.*"],
    _ configure: (inout TaskScheduler.Configuration) -> Void = { _ in }
) -> TaskScheduler {
    var configuration = TaskScheduler.Configuration()
    configure(&configuration)
    return TaskScheduler(permittedIdentifiers: permitted, configuration: configuration)
}

func request(
    _ identifier: String,
    strategy: ContinuedProcessingTaskRequest.SubmissionStrategy = .queue,
    resources: ContinuedProcessingTaskRequest.Resources = []
) -> ContinuedProcessingTaskRequest {
    var request = ContinuedProcessingTaskRequest(identifier: identifier, title: "Title \(identifier)", subtitle: "Sub")
    request.strategy = strategy
    request.requiredResources = resources
    return request
}

extension TaskScheduler {
    /// Registers a handler that waits for `gate`, then completes successfully.
    func registerGated(_ identifier: String, gate: Gate, runs: Counter? = nil) throws {
        try register(forTaskWithIdentifier: identifier) { task in
            runs?.increment()
            await gate.wait()
            task.setTaskCompleted(success: true)
        }
    }

    /// Registers a handler that completes at once.
    func registerImmediate(_ identifier: String, runs: Counter? = nil) throws {
        try register(forTaskWithIdentifier: identifier) { task in
            runs?.increment()
            task.setTaskCompleted(success: true)
        }
    }

    /// Registers a handler that stops and reports failure as soon as it expires.
    func registerCooperative(_ identifier: String, expirations: Counter? = nil) throws {
        try register(forTaskWithIdentifier: identifier) { task in
            let gate = Gate()
            task.expirationHandler = {
                expirations?.increment()
                gate.open()
            }
            await gate.wait()
            task.setTaskCompleted(success: false)
        }
    }
}
