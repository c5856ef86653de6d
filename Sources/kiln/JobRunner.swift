import ArgumentParser
import Compute
import ContinuedProcessing
import Export
import Foundation

/// Runs a recorded job — fresh from `kiln export` or continued by `kiln resume` —
/// as a continued-processing task: takes the output directory's lock, chooses
/// the device, waits for (or refuses) the machine slot, then submits the task
/// and lets the lifecycle map signals onto it while observers poll its progress.
struct JobRunner {
    let record: JobRecord
    /// True for `kiln resume`: verified finished items are not redone.
    let resuming: Bool
    let settings: RunSettings

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        MemoryPolicy.apply()
        let options = record.options
        // The device first: a missing required GPU must stop the job before anything is written.
        let preference = DevicePreference(rawValue: record.device) ?? .auto
        let choice: BackendChoice
        do {
            choice = try BackendSelector.choose(preference)
        } catch {
            fail("\(error)")
            throw KilnExitCode.unavailable
        }
        let output: OutputDirectory
        do {
            output = try OutputDirectory(path: options.outputDirectory)
        } catch {
            throw ValidationError("\(error)")
        }
        let journal = Journal(outputDirectory: options.outputDirectory)
        guard let lock = try JobLock(journal: journal) else {
            let pid = journal.status().map { " (pid \($0.pid))" } ?? ""
            fail("another kiln job\(pid) is running in \(options.outputDirectory)")
            throw KilnExitCode.unavailable
        }
        let finishedBefore = resuming ? journal.verifiedFinished(in: output) : [:]
        if !resuming { try journal.start(record) }

        let reporter = settings.makeReporter()
        let device = choice.note ?? choice.backend.label
        let renderer = Renderer(backend: choice.backend, operations: options.plan.operations, maxPixels: options.maxPixels,
                                allowFallback: preference != .gpu, warn: { reporter.warning($0) })
        let job = ExportJob(options: options, items: record.items, output: output, renderer: renderer,
                            journal: journal, finishedBefore: finishedBefore)
        let (title, subtitle) = displayTitles(device: device)
        let status = StatusPublisher(journal: journal, job: job, device: device, title: title, subtitle: subtitle)
        status.publish(.running)  // at once: `kiln cancel` and `kiln status` read the pid from here
        reporter.start(total: job.items.count, device: device, title: title, subtitle: subtitle)

        var configuration = settings.schedulerConfiguration
        configuration.log = { _ in }
        if preference == .cpu {
            // `--device cpu` never loads Vulkan (SPEC §3); its request needs no GPU, so no probe is needed.
            configuration.resourceProbe = { [] }
        }
        let scheduler = TaskScheduler(permittedIdentifiers: [ExportSession.permittedIdentifier],
                                      configuration: configuration)
        let session = ExportSession(job: job, jobID: record.id, scheduler: scheduler)
        // Signals are handled from here on, also while the job waits in the machine's queue.
        let lifecycle = ProcessLifecycle(scheduler: scheduler, options: lifecycleOptions(job: job, reporter: reporter,
                                                                                        status: status))
        lifecycle.start()
        defer { lifecycle.stop() }

        let slot = try acquireSlot(choice.backend.kind == .vulkan ? .gpu : .cpu, reporter: reporter, status: status,
                                   cancelled: { lifecycle.processState == .terminating })
        guard let slot else {
            let code = settings.strategy == .fail ? KilnExitCode.unavailable : KilnExitCode.resumable
            if settings.strategy == .fail { reporter.warning("another kiln job holds the machine's slot (--strategy fail)") }
            status.publish(.stopped)
            reporter.end(job.counts, total: job.items.count, exitCode: code.rawValue)
            throw code
        }
        let observer = ProgressObserver(session: session, scheduler: scheduler, reporter: reporter, status: status)
        observer.start()

        var request = ContinuedProcessingTaskRequest(identifier: session.identifier, title: title, subtitle: subtitle)
        request.strategy = settings.strategy == .fail ? .fail : .queue
        if preference == .gpu { request.requiredResources = .gpu }
        var hooks = ExportJob.Hooks()
        hooks.onResult = { reporter.file($0) }
        hooks.stallAfter = ProcessInfo.processInfo.environment["KILN_TEST_STALL_AFTER"].flatMap(Int.init)
        do {
            _ = try await session.run(request, hooks: hooks)
        } catch {
            reporter.warning("the export task was not accepted: \(error)")
            status.publish(.stopped)
            reporter.end(job.counts, total: job.items.count, exitCode: KilnExitCode.unavailable.rawValue)
            throw KilnExitCode.unavailable
        }
        await observer.stop()

        let counts = job.counts
        let code = !job.isComplete ? KilnExitCode.resumable
            : counts.failed > 0 ? KilnExitCode.someFailed : KilnExitCode.success
        if let reason = job.stoppedBecause { reporter.warning(reason) }
        status.publish(job.isComplete ? .finished : .stopped)
        reporter.end(counts, total: job.items.count, exitCode: code.rawValue)
        withExtendedLifetime((lock, slot)) {}
        if code != KilnExitCode.success { throw code }
    }

    /// Takes the machine slot per `--strategy`; nil when refused (fail) or interrupted while queued.
    private func acquireSlot(_ kind: MachineSlots.Kind, reporter: any ExportReporter, status: StatusPublisher,
                             cancelled: () -> Bool) throws -> MachineSlots.Slot? {
        let slots = MachineSlots()
        if settings.strategy == .fail { return try slots.tryAcquire(kind) }
        return try slots.acquire(kind, position: { position in
            reporter.queued(position: position)
            status.publish(.queued, queuePosition: position)
        }, cancelled: cancelled)
    }

    private func lifecycleOptions(job: ExportJob, reporter: any ExportReporter,
                                  status: StatusPublisher) -> ProcessLifecycle.Options {
        var options = ProcessLifecycle.Options()
        // Before the terminal stops us, `kiln status` must see where the job is.
        options.onSuspend = { status.publish(.running) }
        options.onStopNow = {
            // Second Ctrl-C: outputs are still never half-written (temp file + rename).
            job.stop()
            status.publish(.stopped)
            reporter.end(job.counts, total: job.items.count, exitCode: KilnExitCode.resumable.rawValue)
            exit(KilnExitCode.resumable.rawValue)
        }
        options.log = { _ in }
        return options
    }

    /// `--title`/`--subtitle` as given, else "Exporting 29 images" and
    /// "fit 1920×1920 · PNG level 6 · CPU (no Vulkan driver)". The device is always
    /// on the display: appended to a custom subtitle.
    private func displayTitles(device: String) -> (String, String) {
        let count = record.items.count
        let title = record.title ?? "Exporting \(count) image\(count == 1 ? "" : "s")"
        if let subtitle = record.subtitle { return (title, subtitle + " · " + device) }
        let parts = record.options.plan.operations.map(\.summary) + ["PNG level \(record.options.plan.level)", device]
        return (title, parts.joined(separator: " · "))
    }

    private func fail(_ message: String) {
        OutputStream.standardError.write("kiln: \(message)\n")
    }
}
