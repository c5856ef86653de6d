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
            throw ValidationError("no kiln job is running in \(directory)")
        }
        guard kill(pid, SIGINT) == 0 else {
            throw ValidationError("cannot signal pid \(pid): \(String(cString: strerror(errno)))")
        }
        print("kiln: asked job \(pid) to stop; `kiln resume \(directory)` continues it")
    }
}
