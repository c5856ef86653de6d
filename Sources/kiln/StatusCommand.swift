import ArgumentParser
import Export
import Foundation

/// `kiln status <output dir> [--json]`: the state of a job, from another terminal.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the state of the export job in an output directory.",
        discussion: """
        For a job split with export --shard, every shard's journal under \
        DIR/.kiln/shards is read: the totals, the pixel-weighted fraction, the \
        throughput, and each shard's state (not started, queued, running with its \
        pid and host, stopping, suspended, stopped, finished) with its counts. It works from \
        any host that mounts DIR. A job not split by --shard that ended says how: \
        its exit code and its conflicts (exitCode and conflicts in --json, as the \
        end event of --progress json).
        """)

    @Argument(help: "The output directory of the job.")
    var directory: String

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        // A sharded job (export --shard) has no whole-job journal: every shard is read and summed.
        if let sharded = ShardedStatus.read(directory) {
            if json {
                print(ShardedStatusView.json(sharded))
            } else {
                ShardedStatusView.text(sharded, directory: directory).forEach { say($0) }
            }
            return
        }
        let journal = Journal(outputDirectory: directory)
        let record: JobRecord
        do {
            record = try journal.job()
        } catch {
            if json {
                // A script reading stdout gets an object too: `jq .state` says "none", not a parse error.
                var line = JSONLine(event: "status")
                if case .noJob = error as? JournalError { line.add("state", .string("none")) } else {
                    line.add("state", .string("unreadable"))
                }
                line.add("error", .string("\(error)"))
                print(line.rendered)
            }
            throw KilnExitCode.failure("\(error)", KilnExitCode.someFailed)
        }
        let live = journal.status()
        let running = JobLock.isHeld(journal)
        // A job whose process died (even by kill -9) no longer holds the lock.
        // A plain SIGSTOP (a cluster's suspend) is not heard by the job: what the process stands in says it.
        let stopped = running && live.map { $0.host == nil || $0.host == Host.name } == true
            && JobLock.isStopped(live?.pid ?? 0) && JobLock.isHeld(journal, by: live?.pid ?? 0)
        let state = stopped ? .suspended : running ? (live?.state ?? .running)
            : live?.state == .finished ? .finished : LiveStatus.State.stopped
        let total = record.items.count
        let written, skipped, failed, completed: Int
        let conflicts: Int?
        let fraction: Double
        // How the run ended, as its `end` event said; nil while it runs, or when it died without ending.
        let exitCode: Int32?
        if running, let live {
            // Counts and fraction of one publication: they always agree with each other.
            (written, skipped, failed, completed, fraction) = (live.written, live.skipped, live.failed, live.completed,
                                                               live.fraction)
            (conflicts, exitCode) = (live.conflicts, nil)
        } else {
            let finished = journal.finished()
            let count = { (status: FileResult.Status) in finished.values.filter { $0.status == status }.count }
            (written, skipped, failed, completed) = (count(.written), count(.skipped),
                                                        count(.failed) + count(.conflict), finished.count)
            conflicts = count(.conflict)
            // The fraction of the images the run finished, where `kiln resume` continues from (every stage weighted
            // by its cost): before, the share of images done, so a script saw 36 %, then 25 %, then 38 %; then the
            // fraction the run last showed, counting work in flight that a resume redoes (a giant image killed at
            // 73 % said 73 %, and stop after stop the fraction climbed to 1 with images left to do).
            fraction = state == .finished ? 1
                : live.map { $0.finishedFraction(recorded: completed) } ?? Double(completed) / Double(max(1, total))
            // A finished job's journal says it all, also one written by a kiln that did not record the code
            // (SPEC §5: 1 when any item failed or conflicted); a stopped one only by what its run published.
            exitCode = live?.exitCode ?? (state == .finished ? (failed > 0 ? 1 : 0) : nil)
        }
        if json {
            var line = JSONLine(event: "status")
            line.add("state", .string(state.rawValue))
            line.add("pid", running ? .int(Int(live?.pid ?? 0)) : .null)
            line.add("device", .string(live?.device ?? ""))
            line.add("title", .string(live?.title ?? ""))
            line.add("subtitle", .string(live?.subtitle ?? ""))
            // Where and when: a script tells a live status from a stale one, and which machine runs the job.
            line.add("host", live?.host.map { .string($0) } ?? .null)
            line.add("started", live?.started.map { .double($0) } ?? .null)
            line.add("updated", live.map { .double($0.updated) } ?? .null)
            line.add("total", .int(total))
            line.add("completed", .int(completed))
            line.add("written", .int(written))
            line.add("skipped", .int(skipped))
            line.add("failed", .int(failed))
            line.add("fraction", .double((fraction * 10_000).rounded() / 10_000))
            line.add("imagesPerSecond", live?.imagesPerSecond.map { .double(($0 * 100).rounded() / 100) } ?? .null)
            line.add("pixelsPerSecond", live?.pixelsPerSecond.map { .int(Int($0.rounded())) } ?? .null)
            line.add("queuePosition", live?.queuePosition.map { .int($0) } ?? .null)
            let waiting = state == .queued ? live?.waitingFor?.first : nil
            line.add("waitingForPid", waiting.map { .int(Int($0.pid)) } ?? .null)
            line.add("waitingForOutput", waiting.map { .string($0.output) } ?? .null)
            line.add("waitingForTitle", waiting.map { .string($0.title) } ?? .null)
            line.add("memory", live?.memory.map { .int($0) } ?? .null)
            line.add("reason", state == .stopped ? live?.reason.map { .string($0) } ?? .null : .null)
            line.add("conflicts", conflicts.map { .int($0) } ?? .null)
            line.add("exitCode", exitCode.map { .int(Int($0)) } ?? .null)
            line.add("stalledOn", live?.stalledOn.map { .strings($0) } ?? .null)
            line.add("stalledTwice", live?.stalledTwice.map { .strings($0) } ?? .null)
            print(line.rendered)
        } else {
            if let live { say("\(live.title) — \(live.subtitle)") }
            var detail = "\(state.rawValue): \(completed)/\(total) done (\(Int(fraction * 100))%), "
                + "\(written) written, \(skipped) skipped, \(failed) failed"
            if let conflicts, conflicts > 0 { detail += " (\(conflicts) conflict\(conflicts == 1 ? "" : "s"))" }
            if let exitCode { detail += " · exit code \(exitCode)" }
            if running, let live { detail += " · pid \(live.pid) · \(live.device)" }
            if running, let memory = live?.memory { detail += " · memory budget \(ByteSize.budgetText(memory))" }
            if running, let live { detail += ShardedStatusView.rate(live.imagesPerSecond, live.pixelsPerSecond) }
            say(detail)
            if state == .queued, let live {
                say("queued at position \(live.queuePosition ?? 1), waiting for "
                      + MachineSlots.Holder.describe(live.waitingFor ?? []))
            }
            if state == .stopped, let reason = live?.reason { say(reason) }
            if state == .stopped { say("run `kiln resume \(directory)` to finish it") }
        }
    }
}
