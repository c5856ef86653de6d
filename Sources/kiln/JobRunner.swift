import ArgumentParser
import Compute
import VulkanCompute
import ContinuedProcessing
import Export
import Foundation
import Locking
import Synchronization

/// Runs a recorded job — fresh from `kiln export` or continued by `kiln resume` —
/// as a continued-processing task: takes the output directory's lock, chooses
/// the device, waits for (or refuses) the machine slot, then submits the task
/// and lets the lifecycle map signals onto it while observers poll its progress.
struct JobRunner {
    let record: JobRecord
    /// True for `kiln resume`: verified finished items are not redone.
    let resuming: Bool
    let settings: RunSettings
    /// Where the job is shown; every exit from here on ends its stream (`end` last).
    let reporter: any ExportReporter
    /// The files the export's folder scans passed over. A resume does not scan again: none.
    var ignored = IgnoredFiles()
    /// Warnings about the command, shown right after the start (format options no output takes).
    var notes: [String] = []
    /// The output folder as the user named it, where the record holds another path (a resume's, from the root).
    var shownDirectory: String?

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        MemoryPolicy.apply()
        // The device first: a missing required GPU must stop the job before anything is written.
        let preference = DevicePreference(rawValue: record.device) ?? .auto
        let choice: BackendChoice
        // `auto` decides by a child process's discovery where it finds no hardware GPU (DeviceProbe): this process
        // then never maps a Vulkan driver.
        let report: DeviceReport?
        if preference == .auto {
            // Ctrl-C, SIGTERM or SIGHUP while the child discovers (a driver hung there for up to a minute): the
            // child is killed, and the job ends as stopped (exit 75), as one waiting for a lock does.
            // A child still at it after 5 s (lavapipe takes 80 ms) is said: the job shows nothing else until it ends.
            let asked = ContinuousClock.now
            var said = false
            report = DeviceProbe.reportForAuto(cancelled: {
                if !said, ContinuousClock.now - asked > .seconds(5) {
                    said = true
                    reporter.warning("Vulkan discovery has not answered in 5 s (a driver stuck in its setup?): the job "
                                     + "waits for it up to \(Int(DeviceProbe.timeout)) s, then renders on the CPU")
                }
                return StartSignals.caught != nil
            })
            try stopIfAsked()
        } else {
            report = nil
        }
        do {
            choice = try BackendSelector.choose(preference, report: report ?? DeviceDiscovery.current)
        } catch {
            // A GPU availability check reads why from the code, as from `kiln devices --json` (discovery ran for the
            // choice that failed: `--device cpu` never runs it, and loading a driver costs 58 MB on lavapipe).
            throw reporter.refusal("\(error)", KilnExitCode.unavailable,
                                   reasonCode: (report ?? DeviceDiscovery.current).reasonCode?.rawValue)
        }
        // A budget kiln itself already takes (its code, libraries, the plan and the device) fits no image: said once,
        // before anything is written (every image failed alone, hundreds of times the same line, exit 1).
        let resident = MemoryLimit.resident
        if resident >= settings.memoryBudget {
            let budget = settings.memory == nil ? "the memory budget (half of this machine's or its cgroup's memory)"
                : "--memory"
            throw reporter.refusal("\(budget) \(ByteSize.budgetText(settings.memoryBudget)) is less than kiln itself holds "
                                   + "(\(ByteSize.text(resident)): its code, libraries and plan), so no image could be "
                                   + "exported; give it more than that", KilnExitCode.usage)
        }
        // The slot folder next, checked again when the slot is taken: one another user controls stops
        // the job before its output folder or journal is written.
        do {
            try MachineSlots().checkFolder()
        } catch {
            throw reporter.refusal("cannot take the machine's slot: \(error)", KilnExitCode.unavailable)
        }
        let slotKind: MachineSlots.Kind = choice.backend.kind == .vulkan ? .gpu : .cpu
        let holder = MachineSlots.Holder(pid: getpid(), output: Self.absolute(self.record.options.outputDirectory),
                                         title: displayTitles(self.record, device: choice.note ?? choice.backend.label).0)
        // `--strategy fail` takes its slot before anything is written: a refused start leaves the output
        // folder as it was (no journal to resume, an earlier run's records kept). Queueing needs the
        // journal first: `kiln status` shows the job's place in the queue.
        let refusedOrFree: MachineSlots.Slot?
        do {
            refusedOrFree = settings.strategy == .fail ? try takeSlotAtOnce(slotKind, as: holder) : nil
        } catch let refused as ExitCode {
            throw refused
        } catch {
            throw reporter.refusal("cannot take the machine's slot: \(error)", KilnExitCode.unavailable)
        }
        let shard = record.shard?.spec
        let directory = record.options.outputDirectory
        // The same inputs in another folder's unfinished in-place job: its records are there, not here. Before the
        // journal folder is made, so a refusal leaves none behind.
        if !self.resuming && record.options.inPlace,
           let other = InPlaceJournals.unfinished(holding: record.items.map(\.input), except: directory).first {
            let inputs = other.count == 1 ? "1 of these inputs belongs" : "\(other.count) of these inputs belong"
            throw reporter.refusal("\(inputs) to an unfinished in-place job whose journal is \(other.folder)/.kiln: run "
                                   + "from here, this export would process those it replaced a second time; nothing "
                                   + "was written. `kiln resume \(other.folder)` finishes that job; to start this one "
                                   + "anyway, remove \(other.folder)/.kiln first", KilnExitCode.usage)
        }
        // The last look before anything is written (the output folder): later, the lifecycle takes the signal over.
        try stopIfAsked()
        let output: OutputDirectory
        // The folders this start makes, the output folder and its missing parents, deepest first: a disk full at the
        // start removes them, left empty (before, the folder or its parents stayed).
        let madeFolders = OutputDirectory.missingFolders(of: directory)
        do {
            // A shard keeps its journal and temporary files in its own folder, cleaned once it holds its lock.
            output = try OutputDirectory(path: directory, journal: shard.map { ".kiln/shards/\($0.folderName)" } ?? ".kiln",
                                         removesStale: shard == nil, notice: { reporter.warning($0) })
        } catch {
            throw reporter.refusal("\(error)", KilnExitCode.usage)
        }
        // Held from here to the end: the job's files are reached through its folders, wherever they move.
        let journal = Journal(output: output)
        if let shard, !self.resuming, let mark = ShardLayout.cancelMark(directory) {
            // A Job's or an array's retry of a cancelled shard ends at once instead of starting over.
            throw reporter.refusal("the job in \(directory) was \(mark); `kiln resume "
                                   + "\(directory) --shard \(shard)` lifts the mark and continues the shard (one "
                                   + "not started yet: then this command starts it)", KilnExitCode.resumable)
        }
        let lock: JobLock
        let finishedBefore: [String: FinishedRecord]
        var lostWrites = Set<String>()
        var changedInPlace: [String] = [], goneInPlace: [String] = []
        let earlierRecords: [String: FinishedRecord]
        var madeHints: [String: FinishedRecord] = [:]
        var record = self.record
        var resuming = self.resuming
        var notes = self.notes
        do {
            lock = try takeLock(journal, in: output)
            // What it holds now, not when this start opened it: a job it waited for may have left outputs.
            output.lookAgain()
            // A whole job's mark was meant for an earlier run (this one was not running to be cancelled):
            // this start, export or resume, lifts it. A shard's mark stays until `kiln resume --shard`, which
            // lifts it here, once it holds its slot and lock: a refused start leaves it as it was.
            if shard == nil || self.resuming { ShardLayout.liftCancel(directory) }
            if shard != nil {
                output.removeTemporaries()
                // The same `export --shard` command again (a retry after a crash, a preemption, a lost
                // node) continues the shard where its journal says, as `kiln resume` would.
                if !resuming, let earlier = try? journal.job(), record.continues(earlier) {
                    let jobs = record.options.jobs
                    // Checked like any journal, and placed where this command writes.
                    record = try earlier.placed(in: record.options.outputDirectory, shard: shard)
                    record.options.jobs = jobs
                    try Self.checkFiles(of: record, reporter: reporter)
                    resuming = true
                }
            }
            // Temporary files a killed in-place run left beside its inputs: nobody else removes them.
            if record.options.inPlace { InPlaceReplacement.removeLeftovers(of: record.items.map(\.input)) }
            if resuming {
                (finishedBefore, lostWrites, changedInPlace, goneInPlace) = journal.verify(in: output, items: record.items,
                                                                                           inPlace: record.options.inPlace)
            } else {
                finishedBefore = [:]
            }
            let ended = journal.status()
            // Read before a new job's start replaces them: they say what made the outputs already there (the job's own
            // records over those its start kept of earlier jobs'). In place, a clean run's kept journal is over, as its
            // removed journal would be: its records of the files it replaced stand for nothing now (the same command
            // again is a new job over the results, as mogrify run twice is). Before, its files met those records: the
            // same command skipped them all, other options kept them as conflicts "of this job" (exit 1), and
            // --overwrite, refused in place, was what the message offered.
            earlierRecords = !resuming && record.options.inPlace && ended?.state == .finished && ended?.exitCode == 0 ? [:]
                : journal.earlier().merging(journal.finished()) { _, own in own }
            // What clean runs made, kept in the user's cache: for outputs the journal has no record of
            // (its journal removed, or a run that ended in conflicts kept one without them).
            if shard == nil && !record.options.inPlace {
                madeHints = MadeCache.hints(for: directory)
            }
            // An in-place run keeps its journal in the folder it starts from, which may hold an unfinished export
            // into that folder: the run would take that journal as its own and remove it at its end (before, `kiln
            // resume` of the export then said the folder held no job). Refused before anything is written.
            // So is a finished one's kept with --keep-journal: the run took it for its own and met false conflicts.
            if !resuming, record.options.inPlace, let earlier = try? journal.job(), !earlier.options.inPlace {
                let done = ended?.state == .finished && ended?.exitCode == 0
                throw reporter.refusal("\(directory)/.kiln holds the journal of " + (done ? "an export into this folder, kept, "
                                       : "an unfinished export into this folder, ") + "which an --in-place run started here "
                                       + "would take the place of; nothing was written. " + (done ? "" : "`kiln resume \(directory)` "
                                       + "finishes that export; or ") + "start the in-place run from another folder",
                                       KilnExitCode.usage)
            }
            // The inputs an unfinished run in place replaced, which this start would not take as its own work: it
            // would stack other options on them, or forget their records (then that run's command again processed
            // them twice). Refused before anything is written. Only a run that finished clean (its journal kept by
            // --keep-journal) is over: forgetting it is what its end would have done. One that ended with failures
            // is not: its command again retries them and skips the rest.
            var carried: [FinishedRecord] = []
            if !resuming, let earlier = try? journal.job(), !(ended?.state == .finished && ended?.exitCode == 0) {
                let left = EarlierRunInPlace(earlier: earlier, records: earlierRecords, items: record.items,
                                             plan: record.options.plan, inPlace: record.options.inPlace, in: output)
                let replaced = left.forgotten
                if let first = replaced.first {
                    let inputs = replaced.count == 1 ? "1 input (\(first)) was" : "\(replaced.count) inputs (\(first) …) were"
                    let mine = Set(record.items.map(\.input))
                    let why = record.options.inPlace && replaced.allSatisfy(mine.contains)
                        ? "these options would stack on its work"
                        // The same files named otherwise (`./in` for `in`): records go by the name a run gave them.
                        : record.options.inPlace && ExportJob.sameFiles(replaced, among: record.items.map(\.input))
                        ? "this export names them otherwise than that run did, so its records would not be found and they "
                            + "would be processed twice; name them as it did"
                        : "this export would forget which ones it replaced, and its command again would process them twice"
                    throw reporter.refusal("\(inputs) replaced in place by an unfinished run whose journal is "
                                           + "\(directory)/.kiln, and \(why); nothing was written. `kiln resume \(directory)` "
                                           + "finishes that run; to start this export anyway, remove \(directory)/.kiln "
                                           + "first", KilnExitCode.usage)
                }
                if let first = left.renamed.first {
                    let inputs = left.renamed.count == 1 ? "1 input (\(first.now), which it named \(first.was)) is a file"
                        : "\(left.renamed.count) inputs (\(first.now), which it named \(first.was) …) are files"
                    throw reporter.refusal("\(inputs) an unfinished run in place replaced, under another name now (its journal "
                                           + "is \(directory)/.kiln): this export would process them a second time; nothing "
                                           + "was written. Give them back the names that run gave them: `kiln resume "
                                           + "\(directory)` finishes it; to start this export anyway, remove "
                                           + "\(directory)/.kiln first", KilnExitCode.usage)
                }
                // The same command again: the inputs that run replaced stay recorded from its start (before, they were
                // recorded again as it came to each, and a stop meanwhile left the rest to be processed twice).
                carried = left.carried
                // Another export into the folder of an unfinished one takes its journal's place: said, for `kiln resume`
                // can no longer finish that one (before, nothing said so, and `kiln status` then showed only this one).
                // Its outputs stay, known by what made them (``Journal/earlier()``). Not refused: unlike in place, no
                // picture is touched twice, and a new export over an abandoned one is a choice a user makes.
                // Other work: other options, or an image that job had left (not made, or failed) that this one does
                // not name (its finished ones stay made, named or not).
                let mine = Set(record.items.map(\.input)), finished = journal.finished()
                let undone = earlier.items.filter { finished[$0.output].map { $0.status == .failed } ?? true }
                if !record.options.inPlace, shard == nil,
                   earlier.options.plan != record.options.plan || !undone.allSatisfy({ mine.contains($0.input) }) {
                    // Done as its journal records (as `kiln status` counts a job no process runs): what it last
                    // published lags behind, by up to a batch (it said 14 of 40 where its records were 19).
                    // A job whose every image has its record ended (its journal kept for its failures or conflicts):
                    // "unfinished, 2 of 2 done" said otherwise; one killed after its last record had none to retry.
                    let unfinished = finished.count < earlier.items.count
                    let left = finished.values.filter { $0.status == .failed || $0.status == .conflict }.count
                    let done = ended.map { " (\($0.title), \(finished.count) of \(earlier.items.count) done"
                        + (unfinished || left == 0 ? ")" : ", \(left) failed or kept as conflicts)") } ?? ""
                    notes.append("\(directory) held " + (unfinished ? "an unfinished job" : "the journal of an ended job")
                                 + "\(done) of other work; this export takes its journal's place, so `kiln resume "
                                 + "\(directory)` can no longer " + (unfinished || left == 0 ? "finish" : "retry") + " that one. Its outputs "
                                 + "stay (as conflicts where this export makes the same names, unless --overwrite)")
                }
            }
            if !resuming {
                let own = Set(carried.map(\.output))
                try journal.start(record, carrying: carried, earlier: earlierRecords.values.filter { !own.contains($0.output) })
            }
        } catch let refused as ExitCode {
            throw refused
        } catch is JobEndedWhileWaiting {
            // An export starts over, in the folder the job left (its outputs are found as this work's, or not);
            // a resume has nothing left to do.
            guard self.resuming else { return try await run() }
            reporter.warning("the job in \(directory) finished while this resume waited for it: nothing is left to do")
            reporter.endWithNothingDone(.success)
            return
        } catch {
            // A folder kiln may not write to (read-only, not its user's) is an unusable output directory, 64, as an
            // export into one says; before, a resume there exited 69, as if another process held the job.
            let unwritable: Bool
            if case JournalError.system(_, let code) = error { unwritable = [EROFS, EACCES, EPERM].contains(code) } else { unwritable = false }
            // A disk already full when a new job starts: nothing to resume. Said so, and the journal folder it
            // half made removed (before, `kiln resume` then said "holds no kiln job"): only when it holds no more
            // than this start made (its lock, an empty temporary folder, empty lists of finished images and of earlier
            // records: no job.json), never another job's (or shard's) files.
            if case JournalError.system(_, let code) = error, code == ENOSPC || code == EDQUOT, !resuming, shard == nil {
                let files = FileManager.default
                let held = (try? files.contentsOfDirectory(atPath: journal.directory)) ?? []
                let temporary = (try? files.contentsOfDirectory(atPath: journal.directory + "/tmp")) ?? []
                let records = ["finished.ndjson", "earlier.ndjson"].map {
                    (try? files.attributesOfItem(atPath: journal.directory + "/" + $0))?[.size] as? Int ?? 0
                }
                if Set(held).isSubset(of: ["lock", "tmp", "finished.ndjson", "earlier.ndjson"]), temporary.isEmpty,
                   records.allSatisfy({ $0 == 0 }) {
                    output.removeJournal()
                    for made in madeFolders where rmdir(made) != 0 { break }  // only while empty: it fails otherwise
                }
                throw reporter.refusal("the file system of \(directory) is full (\(error)): nothing was started; free "
                                       + "space, then run the command again", KilnExitCode.unavailable)
            }
            throw reporter.refusal("cannot use the journal \(journal.directory): \(error)",
                                   unwritable ? KilnExitCode.usage : KilnExitCode.unavailable)
        }
        let options = record.options

        let device = choice.note ?? choice.backend.label
        let renderer = Renderer(backend: choice.backend, operations: options.plan.operations, maxPixels: options.maxPixels,
                                allowFallback: preference != .gpu, warn: { reporter.warning($0) })
        // The budget covers the whole process: what it holds already is set aside.
        // Where the kernel reports memory pressure, fewer images at once while memory is short.
        let pressure = MemoryPressure(path: ProcessInfo.processInfo.environment["KILN_TEST_PRESSURE_FILE"]
                                          ?? "/proc/pressure/memory", warn: { reporter.warning($0) })
        let memory = MemoryBudget(limit: settings.memoryBudget, reserved: MemoryLimit.resident, pressure: pressure)
        // What the stopped run left in its status: the fraction it showed, the images it stalled on. And, of any run
        // before in the folder, the desktop notification it left (one killed left it on the screen), for this one's to
        // replace: read before this run's first publication takes the file's place.
        let published = journal.status()
        let before = resuming ? published : nil
        let outputFolder = directory, ownShard = shard
        let readOtherJournals: @Sendable () -> [String: [FinishedRecord]] = {
            ShardLayout.otherJournalsRecords(in: outputFolder, besides: ownShard)
        }
        let otherJournals = record.options.inPlace ? nil : readOtherJournals
        let job = ExportJob(options: options, items: Self.leavingOut(before?.stalledTwice ?? [], from: record.items),
                            output: output, renderer: renderer,
                            journal: journal, finishedBefore: finishedBefore, earlierRecords: earlierRecords,
                            madeHints: madeHints,
                            // And what the folder's other journals recorded (each shard's, the whole job's), which the
                            // cache has not: read when an output with no record of this job's is met.
                            otherJournals: otherJournals,
                            lostWrites: lostWrites, durability: settings.durability, memory: memory,
                            // A resume's fraction continues from the work the stopped run finished.
                            progressBefore: before.map { $0.finishedFraction(recorded: finishedBefore.count) },
                            shownOutputDirectory: shownDirectory)
        let (title, subtitle) = displayTitles(record, device: device)
        let status = StatusPublisher(journal: journal, job: job, device: device, title: title, subtitle: subtitle,
                                     continuing: resuming, notification: published?.notification)
        status.publish(.running)  // at once: `kiln cancel` and `kiln status` read the pid from here
        reporter.start(total: job.items.count, device: device, title: title, subtitle: subtitle, memory: memory.limit,
                       ignored: ignored)
        for note in notes { reporter.warning(note) }
        // A budget past what the machine (or the cgroup) has holds nothing back: said, not refused (a job sized for
        // another machine still runs). Before, `--memory 1T` on 24 GB went without a word.
        if settings.memory != nil, memory.limit > MemoryLimit.available {
            reporter.warning("--memory \(ByteSize.budgetText(memory.limit)) is more than the \(ByteSize.text(MemoryLimit.available)) "
                             + "this machine (or its cgroup) has: it holds no image back, and the system may stop kiln first")
        }
        if let report, DeviceProbe.failed(report) { reporter.warning(report.reason + "; rendering on the CPU") }
        if let problem = MachineSlots.cpuSlotsProblem() { reporter.warning(problem) }
        for input in changedInPlace {
            reporter.warning("\(input): changed since this job replaced it (another run processed it?); kept as it is, "
                             + "not processed a second time")
        }
        for input in goneInPlace {
            reporter.warning("\(input): replaced by this job, and no longer there (moved or removed since); not processed "
                             + "again, here or when it is put back")
        }

        var configuration = settings.schedulerConfiguration
        configuration.log = { _ in }
        configuration.resourceProbe = ExportSession.resourceProbe(for: preference, report: report)
        let scheduler = TaskScheduler(permittedIdentifiers: [ExportSession.permittedIdentifier],
                                      configuration: configuration)
        let session = ExportSession(job: job, jobID: record.id, scheduler: scheduler)
        // The plan is made: the views outside the terminal (desktop, systemd) follow the job from here.
        // The views' warnings (a notification server that does not answer) go through the stream: one that
        // comes after `end` (the reply timed out after a short job) is no JSON line after the last.
        let views = Locked<ClosingStream?>(nil)
        let (countsBefore, fractionBefore) = job.snapshot
        let presentation = JobPresentation(identifier: session.identifier, title: title, subtitle: subtitle,
                                           total: job.items.count, completed: countsBefore.completed,
                                           fraction: fractionBefore,
                                           presenters: settings.makePresenters(replacing: published?.notification,
                                                                               shown: { status.noteNotification($0) },
                                                                               warn: { message in
                                               if let stream = views.withLock({ $0 }) { stream.warning(message) }
                                               else { reporter.warning(message) }
                                           }))
        let stream = ClosingStream(reporter: reporter, job: job, presentation: presentation)
        views.withLock { $0 = stream }

        // Signals are handled from here on, also while the job waits in the machine's queue.
        let lifecycle = ProcessLifecycle(scheduler: scheduler, options: lifecycleOptions(job: job, stream: stream,
                                                                                        status: status))
        lifecycle.start()
        defer { lifecycle.stop() }
        StartSignals.handOver()  // one caught since the last look: the lifecycle's first
        // What a person's Cancel does from anywhere but the terminal: exactly what Ctrl-C does. Once: a second
        // SIGINT would abandon the images in flight. A Pause (a KDE job view's Suspend) holds the workers between
        // strips, and the watchdog does not count the pause.
        let user = TaskActions(cancel: { if lifecycle.processState != .terminating { kill(getpid(), SIGINT) } },
                               setPaused: { paused in
                                   job.setPaused(paused)
                                   // Whatever order these run in, the scheduler ends with the job's state.
                                   Task { await scheduler.setSuspended(job.isPaused, taskWithIdentifier: session.identifier) }
                               })
        presentation.attach(user)

        // Every job learns of `kiln cancel` from another host by its mark (a shard, of one from any host):
        // it stops as Ctrl-C would, also while queued.
        let cancelWatch = CancelWatch(outputDirectory: directory, user: user)
        cancelWatch.start()
        defer { cancelWatch.stop() }

        let slot: MachineSlots.Slot?
        do {
            slot = try refusedOrFree ?? MachineSlots().acquire(slotKind, as: holder, position: { position, holders in
                reporter.queued(position: position, waitingFor: holders)
                status.publish(.queued, queuePosition: position, waitingFor: holders)
                presentation.queued(position: position)
            }, cancelled: { lifecycle.processState == .terminating })
        } catch {
            status.publish(.stopped, exitCode: KilnExitCode.unavailable)
            throw stream.close(KilnExitCode.unavailable, error: "cannot take the machine's slot: \(error)")
        }
        // Nil: stopped while it waited in the queue. No task saw the stop: said here, as a running job's is.
        guard let slot else {
            if let reason = lifecycle.terminationReason {
                reporter.stopping(reason: reason, inFlight: 0, grace: settings.grace)
            }
            status.publish(.stopped, exitCode: KilnExitCode.resumable)
            throw stream.close(KilnExitCode.resumable)
        }
        let observer = ProgressObserver(session: session, scheduler: scheduler, reporter: reporter, status: status,
                                        presentation: presentation, grace: settings.grace)
        observer.start()
        stream.showsLastFrame { observer.showLast() }

        var request = ContinuedProcessingTaskRequest(identifier: session.identifier, title: title, subtitle: subtitle)
        request.strategy = settings.strategy == .fail ? .fail : .queue
        if preference == .gpu { request.requiredResources = .gpu }
        var hooks = ExportJob.Hooks()
        hooks.onResult = { stream.file($0) }
        hooks.stallAfter = ProcessInfo.processInfo.environment["KILN_TEST_STALL_AFTER"].flatMap(Int.init)
        hooks.stallRelease = ProcessInfo.processInfo.environment["KILN_TEST_STALL_RELEASE"]
        hooks.decodePause = ProcessInfo.processInfo.environment["KILN_TEST_PAUSE_DECODE"]
        do {
            _ = try await session.run(request, hooks: hooks)
        } catch {
            await observer.stop(afterEnd: false)
            status.publish(.stopped, exitCode: KilnExitCode.unavailable)
            throw stream.close(KilnExitCode.unavailable, error: "the export task was not accepted: \(error)")
        }
        await observer.stop(afterEnd: true)
        if options.inPlace && !job.isComplete { InPlaceReplacement.removeLeftovers(of: job.items.map(\.input), own: true) }

        let counts = job.counts
        let code = !job.isComplete ? KilnExitCode.resumable
            : counts.failed + counts.conflicts > 0 ? KilnExitCode.someFailed : KilnExitCode.success
        if let reason = job.stoppedBecause { reporter.warning(reason) }
        // Stalled on the same image as the run before: said, and left out of the next run (rather than looping).
        let stalls = observer.stalledOn.map { on in (on: on, twice: on.filter { (before?.stalledOn ?? []).contains($0) }) }
        for input in stalls?.twice ?? [] {
            reporter.warning("\(input): no progress for \(Self.seconds(settings.stallTimeout)) in this run and in the "
                             + "one before, both times while exporting this image: `kiln resume` leaves it out as failed, so "
                             + "that the rest can finish (a longer --stall-timeout gives it more time)")
        }
        let small = job.imagesLeftSmallerThanTheBox
        if small > 0 {
            // In the words of a recipe too: "--upscale" alone named a flag its author never wrote.
            reporter.warning("\(small) image\(small == 1 ? " was" : "s were") smaller than the resize box and "
                             + "kept \(small == 1 ? "its" : "their") size (on the sides that were; --upscale, or a recipe's "
                             + "\"upscale\": true, enlarges them)")
        }
        status.publish(job.isComplete ? .finished : .stopped, reason: job.stoppedBecause, exitCode: code, stalls: stalls)
        let exit = stream.close(code)
        // A folder published after a clean run holds only its outputs; what made them goes to the
        // user's cache, so a re-run recognizes them unread (MadeCache), else by comparing (ExportJob).
        // A shard keeps its journal: `kiln status` tells a finished shard from one not started by it,
        // and a retry of a finished shard then ends at once.
        if code == KilnExitCode.success && record.keepJournal != true && shard == nil {
            if !record.options.inPlace { MadeCache.keep(journal.finished(), for: directory) }
            journal.close()
            output.removeJournal()
        }
        withExtendedLifetime((lock, slot)) {}
        if code != KilnExitCode.success { throw exit }
    }

    /// The job whose lock this one waited for ended without failures and removed its journal.
    private struct JobEndedWhileWaiting: Error {}

    /// `items`, those whose input is in `stalled` failing at once: the previous two runs each
    /// stalled while exporting them.
    static func leavingOut(_ stalled: [String], from items: [ExportItem]) -> [ExportItem] {
        guard !stalled.isEmpty else { return items }
        let stalled = Set(stalled)
        return items.map { item in
            guard stalled.contains(item.input), item.problem == nil else { return item }
            var item = item
            item.problem = "left out: the two runs before this one each made no progress for the stall timeout "
                + "while exporting it; `kiln resume` tries it again (a longer --stall-timeout gives it more time)"
            return item
        }
    }

    /// `seconds` as a person reads it: "60 s", "0.5 s".
    static func seconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    /// Refuses (exit 64) to continue a job whose ICC profile or watermark file is gone or changed since it
    /// started (``FileFingerprint``): the rest would be made otherwise, or not at all. Run from the job's
    /// working directory, before anything is written.
    static func checkFiles(of record: JobRecord, reporter: any ExportReporter) throws {
        do {
            for file in record.options.plan.files + (record.profiles ?? []) { try file.check() }
        } catch {
            throw reporter.refusal("cannot continue the job in \(record.options.outputDirectory): \(error); nothing "
                                   + "was written. Put the file back as it was, or remove \(record.options.outputDirectory)/.kiln and export "
                                   + "again (a shard's same command continues its journal)",
                                   KilnExitCode.usage)
        }
    }

    /// Takes the job's (or shard's) lock. When another process holds it: exits 69, or, with
    /// `--strategy queue` given explicitly, waits for it (a duplicate worker should not sit
    /// waiting unless asked: a Job or array retries it anyway).
    private func takeLock(_ journal: Journal, in output: OutputDirectory) throws -> JobLock {
        if let lock = try JobLock(journal: journal) { return lock }
        let other = journal.status().map { status in
            " (pid \(status.pid)" + (status.host.map { " on \($0)" } ?? "") + ")"
        } ?? ""
        let what = record.shard.map { "shard \($0.spec) of the job" } ?? "another kiln job"
        let place = "\(what)\(other) is running in \(record.options.outputDirectory)"
        guard settings.strategy == .queue else {
            throw reporter.refusal(place + (record.shard == nil ? "" : " (--strategy queue waits for it)"),
                                   KilnExitCode.unavailable)
        }
        reporter.warning(place + "; waiting for it (--strategy queue)")
        while true {
            usleep(200_000)
            try stopIfAsked()
            // The job before ended without failures and removed its folder (renamed away first), or another
            // waiter already made a new one: this folder is no one's, so the start begins again.
            do {
                if let lock = try JobLock(journal: journal) {
                    guard output.holdsItsJobFolder else { throw JobEndedWhileWaiting() }
                    try stopIfAsked()  // a signal caught while the lock was taken
                    return lock
                }
            } catch where !output.holdsItsJobFolder {
                throw JobEndedWhileWaiting()
            }
            if record.shard != nil, !self.resuming, let mark = ShardLayout.cancelMark(record.options.outputDirectory) {
                throw reporter.refusal("stopped waiting: the job was \(mark)", KilnExitCode.resumable)
            }
        }
    }

    /// Ends a job that has written nothing yet when a stop signal came (``StartSignals``: while the inputs were scanned,
    /// devices discovered, or another job's lock awaited): its stream says why and ends, exit 75.
    private func stopIfAsked() throws {
        guard let number = StartSignals.caught else { return }
        let reason: ExpirationReason = number == SIGINT ? .userCancelled : number == SIGTERM ? .systemTermination : .hangUp
        reporter.stopping(reason: reason, inFlight: 0, grace: settings.grace)
        reporter.endWithNothingDone(KilnExitCode.resumable)
        throw KilnExitCode.resumable
    }

    /// Takes a free slot of `kind` for `holder` at once (`--strategy fail`), or refuses the start (exit 69),
    /// naming the jobs that hold the slots.
    private func takeSlotAtOnce(_ kind: MachineSlots.Kind, as holder: MachineSlots.Holder) throws -> MachineSlots.Slot {
        let slots = MachineSlots()
        if let slot = try slots.tryAcquire(kind, as: holder) { return slot }
        let holders = (try? slots.holders(of: kind)) ?? []
        throw reporter.refusal("\(MachineSlots.Holder.describe(holders)) holds the machine's \(kind == .gpu ? "GPU" : "CPU") "
                               + "slot (--strategy fail); nothing was written", KilnExitCode.unavailable)
    }

    /// `path` from the root: what another process can find it by.
    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    private func lifecycleOptions(job: ExportJob, stream: ClosingStream,
                                  status: StatusPublisher) -> ProcessLifecycle.Options {
        var options = ProcessLifecycle.Options()
        // Before the terminal stops us, `kiln status` must see where the job is.
        options.onSuspend = {
            job.pauses.set(.process, paused: true)
            status.publish(.suspended)
        }
        options.onResume = {
            job.pauses.set(.process, paused: false)
            status.publish(.running)
        }
        options.isStopping = { job.isStopping }
        options.onStopNow = {
            // Second Ctrl-C: at once. Outputs are still never half-written (temp file + rename).
            job.stop()
            status.publish(.stopped, exitCode: KilnExitCode.resumable)
            exit(stream.closeNow(KilnExitCode.resumable).rawValue)
        }
        options.log = { _ in }
        return options
    }

    /// `--title`/`--subtitle` as given, else "Exporting 29 images" and
    /// "fit 1920×1920 · JPEG quality 85 4:2:0 · CPU (no Vulkan driver)". The device is always
    /// on the display: appended to a custom subtitle.
    private func displayTitles(_ record: JobRecord, device: String) -> (String, String) {
        let count = record.items.count
        let title = record.title ?? JobRecord.defaultTitle(images: count)
        if let subtitle = record.subtitle { return (title, subtitle + " · " + device) }
        let parts = record.options.plan.operations.map(\.summary) + [record.options.plan.output.summary(level: record.options.plan.level, outputs: record.items.map(\.output)), device]
        return (title, parts.joined(separator: " · "))
    }
}
