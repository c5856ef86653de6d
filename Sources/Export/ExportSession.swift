import ContinuedProcessing
import Foundation
import VulkanCompute
import Locking

/// Runs an ``ExportJob`` as a continued-processing task, through the public
/// API of `ContinuedProcessing` as any Swift program would: it registers a
/// launch handler under a dynamic identifier (`org.kiln.export.<job id>`),
/// submits a request, and in the handler runs the job, writes each output
/// inside critical work, and reports completion.
///
/// When the task expires (Ctrl-C, `kiln cancel`, SIGTERM, a stall) the job takes
/// no new image and finishes the images in flight within the scheduler's
/// expiration grace; if the grace runs out first, the scheduler cancels the
/// handler and the job abandons them (they are redone by `kiln resume`).
///
/// Observers (the CLI's bar or JSON stream) follow the scheduler's events and
/// poll ``task``'s `progress`; the session itself never prints.
public final class ExportSession: Sendable {
    /// The wildcard identifier export tasks are permitted under.
    public static let permittedIdentifier = "org.kiln.export.*"

    /// The job run by the task.
    public let job: ExportJob
    /// The task identifier.
    public let identifier: String
    private let scheduler: TaskScheduler
    private let startedTask = Locked<ContinuedProcessingTask?>(nil)

    /// A session for `job` on `scheduler`, identified by `jobID`.
    public init(job: ExportJob, jobID: String, scheduler: TaskScheduler) {
        self.job = job
        self.identifier = "org.kiln.export.\(jobID)"
        self.scheduler = scheduler
    }

    /// The task, once the scheduler started it.
    public var task: ContinuedProcessingTask? { startedTask.withLock { $0 } }

    /// Registers and submits the task, then waits for its end event. Returns
    /// whether the task reported success (every item finished).
    ///
    /// - Throws: `TaskSchedulerError` when the submission is rejected (e.g.
    ///   `unavailable` for a `.gpu` request on a machine without a GPU).
    public func run(_ request: ContinuedProcessingTaskRequest, hooks: ExportJob.Hooks) async throws -> Bool {
        precondition(request.identifier == identifier, "the request must use the session's identifier")
        let events = scheduler.events()
        let job = self.job
        try await scheduler.register(forTaskWithIdentifier: identifier) { [self] task in
            startedTask.withLock { $0 = task }
            task.expirationHandler = { job.finishInFlight() }
            let hooks = hooks.criticalWork { name, body in try task.withCriticalWork(name, body) }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    // The job blocks on its worker threads: keep it off the cooperative pool.
                    Thread.detachNewThread {
                        job.run(progress: task.progress, hooks: hooks)
                        done.resume()
                    }
                }
            } onCancel: {
                job.stop()  // the grace ran out: abandon the images in flight
            }
            task.setTaskCompleted(success: job.isComplete)
        }
        try await scheduler.submit(request)
        for await event in events where event.identifier == identifier {
            switch event {
            case .completed(_, let success): return success
            case .failed: return false
            default: continue
            }
        }
        return false
    }
}

extension ExportSession {
    /// The probe behind a job's `TaskScheduler.supportedResources` (SPEC §3):
    /// `.gpu` only when Vulkan discovery finds a usable hardware device
    /// (discrete, integrated or virtual; a software device such as lavapipe is
    /// not a GPU). Discovery runs once per process. For `--device cpu` nothing
    /// is probed: that job never loads Vulkan, and its request needs no GPU.
    /// `report`: discovery made already (in a child process, for `--device auto`), used instead.
    public static func resourceProbe(for preference: DevicePreference, report: DeviceReport? = nil)
        -> @Sendable () -> ContinuedProcessingTaskRequest.Resources
    {
        guard preference != .cpu else { return { [] } }
        if let report { return { report.supportsGPU ? .gpu : [] } }
        return { DeviceDiscovery.current.supportsGPU ? .gpu : [] }
    }
}
