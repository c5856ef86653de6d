import ArgumentParser
import Export
import Foundation

/// `kiln cancel <output dir>`: asks the running job to stop gracefully (as Ctrl-C does).
struct CancelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Ask the export job running in an output directory to stop (resumable).",
        discussion: """
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
        // Only a live lock holder is signalled, so a stale pid (reused by an
        // unrelated process after the job died) is never hit.
        guard JobLock.isHeld(journal), let pid = journal.status()?.pid, pid > 0 else {
            // Not a usage error: the command line was right, there is just nothing to stop.
            let why: String
            do {
                _ = try journal.job()
                why = journal.status()?.state == .finished ? "the job in \(directory) already finished; nothing to cancel"
                    : "the job in \(directory) is not running (stopped; `kiln resume \(directory)` continues it)"
            } catch JournalError.noJob {
                why = "no kiln job was started in \(directory)"
            } catch {
                why = "\(error)"  // a journal that is there but cannot be read or understood: the path and why
            }
            throw KilnExitCode.failure(why, KilnExitCode.someFailed)
        }
        guard kill(pid, SIGINT) == 0 else {
            throw KilnExitCode.failure("cannot signal pid \(pid): \(String(cString: strerror(errno)))", KilnExitCode.unavailable)
        }
        print("kiln: asked job \(pid) to stop; `kiln resume \(directory)` continues it")
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
        message += running.isEmpty ? "no shard is running"
            : "\(running.count) running shard\(running.count == 1 ? "" : "s") stop at their next image"
            + (here.isEmpty ? "" : " (here: " + here.map { "\($0.shard) pid \($0.pid ?? 0)" }.joined(separator: ", ") + ")")
        print(message + "; `kiln resume \(directory) --shard K/N` continues a shard")
    }
}
