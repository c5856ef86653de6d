import ArgumentParser
import Export
import Foundation

/// `kiln cancel <output dir>`: asks the running job to stop gracefully (as Ctrl-C does).
///
/// Only a process verified to be the job is signalled: on this host (status.json's
/// host is this one) and holding the job's lock. A job on another host is asked
/// through the cancel mark it polls. A job that ended meanwhile is said to have
/// finished or stopped (exit 1), never signalled.
struct CancelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Ask the export job running in an output directory to stop (resumable).",
        discussion: """
        Only the job's own process is signalled: status.json must name this host \
        and a pid that holds the job's lock (a lock held by another process: \
        nothing is signalled, exit 69). A job \
        running on another host that mounts DIR is asked through the mark \
        DIR/.kiln/cancelled, which it checks every 0.25 s. A job that already \
        finished or stopped is said so (exit 1).

        For a job split with export --shard, kiln cancel marks the whole job \
        cancelled (DIR/.kiln/cancelled): every shard, on this host or another that \
        mounts DIR, stops at its next image as Ctrl-C stops it (the images in flight \
        finish within --grace) and exits 75; a shard started or retried later exits \
        75 at once. `kiln resume DIR --shard K/N` lifts the mark and continues.
        """)

    @Argument(help: "The output directory of the job.")
    var directory: String

    func run() throws {
        if ShardLayout.isSharded(directory) { return try cancelShards() }
        let journal = Journal(outputDirectory: directory)
        do {
            _ = try journal.job()
        } catch let error as JournalError {
            // Not a usage error: the command line was right, there is just nothing to stop. Said as `kiln status`
            // says it ("holds no kiln job …; a job that finished without failures or conflicts removes it", or no such folder).
            guard case .noJob = error else { throw KilnExitCode.failure("\(error)", KilnExitCode.someFailed) }
            throw KilnExitCode.failure("nothing to cancel: \(error)", KilnExitCode.someFailed)
        } catch {
            // A journal that is there but cannot be read or understood: the path and why.
            throw KilnExitCode.failure("\(error)", KilnExitCode.someFailed)
        }
        guard let status = journal.status() else { throw notRunning(journal) }
        if let host = status.host, host != Host.name { return try cancelElsewhere(journal, status, host: host) }
        // Decision: only a process that holds this job's lock now (the kernel's lock table says so)
        // is signalled: a pid that status.json names wrongly — stale, reused, crafted — is never hit.
        guard JobLock.isHeld(journal) else { throw notRunning(journal) }
        let pid = status.pid
        guard JobLock.isHeld(journal, by: pid) else {
            // Let go since the first look: the job ended meanwhile (its last status written before). Before, this read
            // as a lock held by another process (exit 69) in about 1 of 8 cancels repeated while a job stopped.
            guard JobLock.isHeld(journal) else { throw notRunning(journal) }
            throw KilnExitCode.failure("the job in \(directory) is running, but pid \(pid) that \(journal.directory)/status.json "
                                       + "names does not hold its lock; nothing was signalled", KilnExitCode.unavailable)
        }
        // Asked already (status.json says so as soon as the job takes the stop): a second SIGINT would be a second
        // Ctrl-C, which abandons the images in flight. Before, a cancel repeated by a script or an impatient person
        // turned the graceful stop into a hard one.
        if status.state == .stopping {
            // Stopped meanwhile by a plain SIGSTOP (a cluster suspending it within its grace): continued, it ends.
            let continued = JobLock.isStopped(pid) && kill(pid, SIGCONT) == 0
            say("kiln: job \(pid) is already stopping (the images in flight finish within its --grace)"
                  + (continued ? ", and was continued (it was suspended) so that it can" : "")
                  + "; `kiln resume \(directory)` continues it")
            return
        }
        guard kill(pid, SIGINT) == 0 else {
            // Gone between the check and the signal: it finished or stopped meanwhile.
            if errno == ESRCH { throw notRunning(journal) }
            throw KilnExitCode.failure("cannot signal pid \(pid): \(String(cString: strerror(errno)))", KilnExitCode.unavailable)
        }
        // A job suspended (Ctrl-Z, or a plain SIGSTOP it cannot hear) takes the stop only once it runs: continued, it
        // stops as asked. Before, the cancel said it had asked, and the job stood still until someone continued it.
        if status.state == .suspended || JobLock.isStopped(pid), kill(pid, SIGCONT) == 0 {
            say("kiln: asked job \(pid) to stop, and continued it (it was suspended) so that it can; `kiln resume "
                + "\(directory)` continues it")
            return
        }
        say("kiln: asked job \(pid) to stop; `kiln resume \(directory)` continues it")
    }

    /// The job runs on another host (a shared output folder): no signal can reach it
    /// from here, so the cancel mark is left, which every job polls (``CancelWatch``).
    private func cancelElsewhere(_ journal: Journal, _ status: LiveStatus, host: String) throws {
        // A lock taken over a network file system shows there too; one free means the job ended.
        if !JobLock.isHeld(journal) && (status.state == .finished || status.state == .stopped) {
            throw notRunning(journal)
        }
        do {
            try ShardLayout.markCancelled(directory)
        } catch {
            throw KilnExitCode.failure("cannot mark the job in \(directory) cancelled: \(error)", KilnExitCode.unavailable)
        }
        say("kiln: asked job \(status.pid) on \(host) to stop (it checks \(directory)/.kiln/cancelled every "
              + "\(Double(CancelWatch.interval) / 1e6) s; no signal goes to another host); "
              + "`kiln resume \(directory)` continues it")
    }

    /// The error for a job that is not running: finished (nothing to do) or stopped (resume continues it).
    private func notRunning(_ journal: Journal) -> ExitCode {
        // A job that finished clean removes its journal: gone since the cancel first read it, it finished.
        let finished = journal.status().map { $0.state == .finished } ?? ((try? journal.job()) == nil)
        let why = finished ? "the job in \(directory) already finished; nothing to cancel"
            : "the job in \(directory) already stopped: it is not running; `kiln resume \(directory)` continues it"
        return KilnExitCode.failure(why, KilnExitCode.someFailed)
    }

    /// Marks a sharded job cancelled; each shard's watcher stops it (no signal from here:
    /// one on top of the watcher's would be a second Ctrl-C, which abandons the images in flight).
    private func cancelShards() throws {
        if let status = ShardedStatus.read(directory), status.state == "finished" {
            throw KilnExitCode.failure("the job in \(directory) already finished (all \(status.shardCount) shards); "
                                       + "nothing to cancel", KilnExitCode.someFailed)
        }
        do {
            try ShardLayout.markCancelled(directory)
        } catch {
            throw KilnExitCode.failure("cannot mark the job in \(directory) cancelled: \(error)", KilnExitCode.unavailable)
        }
        let host = Host.name
        let running = (ShardedStatus.read(directory)?.shards ?? []).filter { $0.pid != nil }
        let here = running.filter { $0.host == host }
        var message = "kiln: marked the job in \(directory) cancelled; "
        if running.isEmpty {
            message += "no shard is running"
        } else {
            message += running.count == 1 ? "1 running shard stops at its next image"
                : "\(running.count) running shards stop at their next image"
            message += here.isEmpty ? "" : " (here: " + here.map { "\($0.shard) pid \($0.pid ?? 0)" }.joined(separator: ", ") + ")"
        }
        say(message + "; `kiln resume \(directory) --shard K/N` continues a shard")
    }
}
