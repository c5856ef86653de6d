import ArgumentParser
import Export
import Foundation

/// `kiln cancel <output dir>`: asks the running job to stop gracefully (as Ctrl-C does).
struct CancelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Ask the export job running in an output directory to stop (resumable).")

    @Argument(help: "The output directory of the job.")
    var directory: String

    func run() throws {
        let journal = Journal(outputDirectory: directory)
        // Only a live lock holder is signalled, so a stale pid (reused by an
        // unrelated process after the job died) is never hit.
        guard JobLock.isHeld(journal), let pid = journal.status()?.pid, pid > 0 else {
            // Not a usage error: the command line was right, there is just nothing to stop.
            let why = (try? journal.job()) == nil ? "no kiln job was started in \(directory)"
                : journal.status()?.state == .finished ? "the job in \(directory) already finished; nothing to cancel"
                : "the job in \(directory) is not running (stopped; `kiln resume \(directory)` continues it)"
            throw KilnExitCode.failure(why, KilnExitCode.someFailed)
        }
        guard kill(pid, SIGINT) == 0 else {
            throw KilnExitCode.failure("cannot signal pid \(pid): \(String(cString: strerror(errno)))", KilnExitCode.unavailable)
        }
        print("kiln: asked job \(pid) to stop; `kiln resume \(directory)` continues it")
    }
}
