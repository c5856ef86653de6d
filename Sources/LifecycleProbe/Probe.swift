import ContinuedProcessing
import Foundation
import Synchronization

/// A task that advances slowly under a ``ProcessLifecycle``, saying what happens on
/// standard output, one line per fact, for the lifecycle tests.
final class Probe: Sendable {
    static let identifier = "org.kiln.probe.job"
    let options: ProbeOptions
    /// The last progress step written, for the suspend line. Atomics are inlined into
    /// this module, so ThreadSanitizer sees them (it cannot see `Mutex` on Linux).
    private let lastStep = Atomic<Int64>(0)
    /// Set by the expiration handler; the work loop stops when it is.
    private let stop = Atomic(false)

    init(options: ProbeOptions) {
        self.options = options
    }

    func run() async -> Never {
        var configuration = TaskScheduler.Configuration()
        configuration.expirationGrace = options.grace
        let scheduler = TaskScheduler(permittedIdentifiers: ["org.kiln.probe.*"], configuration: configuration)
        let events = scheduler.events()
        let lifecycle = ProcessLifecycle(scheduler: scheduler, options: lifecycleOptions())
        lifecycle.start()
        if let number = options.raiseAtStart { kill(getpid(), number) }
        say("ready \(getpid()) nice \(Self.nice())")
        do {
            try await scheduler.register(forTaskWithIdentifier: Self.identifier) { task in await self.work(task) }
            try await scheduler.submit(
                ContinuedProcessingTaskRequest(identifier: Self.identifier, title: "Probe", subtitle: "advancing slowly"))
        } catch {
            finish(1, because: "\(error)")
        }
        for await event in events {
            switch event {
            case .started: say("started")
            case .expiring(_, let reason): say("expired \(reason.rawValue)")
            case .completed(_, let success): finish(success ? 0 : 75)
            case .failed(_, let message): finish(1, because: message)
            default: break
            }
        }
        finish(1, because: "the event stream ended")
    }

    private func work(_ task: ContinuedProcessingTask) async {
        task.expirationHandler = { self.stop.store(true, ordering: .sequentiallyConsistent) }
        task.progress.totalUnitCount = options.steps
        var step: Int64 = 0
        while step < options.steps, !stopped {
            try? await Task.sleep(for: options.step)
            step += 1
            task.progress.completedUnitCount = step
            lastStep.store(step, ordering: .sequentiallyConsistent)
            say("progress \(step)")
        }
        if stopped {
            // Keep what is done: the cleanup must finish even if the grace is short.
            await task.withCriticalWork("cleanup") { try? await Task.sleep(for: options.cleanup) }
        }
        task.setTaskCompleted(success: !stopped)
    }

    private var stopped: Bool { stop.load(ordering: .sequentiallyConsistent) }

    private func lifecycleOptions() -> ProcessLifecycle.Options {
        var lifecycle = ProcessLifecycle.Options()
        lifecycle.onSuspend = { say("suspended \(self.lastStep.load(ordering: .sequentiallyConsistent))") }
        lifecycle.onResume = { say("resumed") }
        lifecycle.onStopNow = { finish(130, because: "stop now") }
        lifecycle.onStateChange = { say("state \($0.rawValue) nice \(Self.nice())") }
        lifecycle.log = { say("log \($0)") }
        lifecycle.foregroundCheckInterval = options.foregroundCheck
        if let file = options.backgroundFile {
            lifecycle.isForeground = { !FileManager.default.fileExists(atPath: file) }
        }
        return lifecycle
    }

    /// The calling thread's nice value.
    private static func nice() -> Int32 {
        getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
    }
}

/// Writes one line unbuffered, so a test reading the output sees it at once.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func finish(_ code: Int32, because reason: String? = nil) -> Never {
    if let reason { say(reason) }
    say("exit \(code)")
    exit(code)
}
