import ArgumentParser
import ContinuedProcessing
import Compute
import Export

/// Shows a running export to a person or a script. Called from several threads.
protocol ExportReporter: Sendable {
    /// The job starts: how many images, on which device, under which title, within which memory budget (bytes),
    /// and which files its folder scans passed over (shown with the start, once per job: one summary line, or
    /// the counts in `start` and one `ignored` event per file right after it).
    func start(total: Int, device: String, title: String, subtitle: String, memory: Int, ignored: IgnoredFiles)
    /// The job waits for a machine slot at this 1-based queue position, behind
    /// the jobs holding the slots (as their slot files name them; empty when none does).
    func queued(position: Int, waitingFor: [MachineSlots.Holder])
    /// One input finished.
    func file(_ result: FileResult)
    /// Something the user should know that is not a per-file failure.
    func warning(_ message: String)
    /// Called about ten times a second while the job runs.
    func tick(_ snapshot: ProgressSnapshot)
    /// The task is expiring: it takes no new image, finishes the `inFlight` images
    /// within `grace` seconds (abandoning them after, for `kiln resume`), and stops.
    func stopping(reason: ExpirationReason, inFlight: Int, grace: Double)
    /// Why the job cannot start or go on (bad output folder, no GPU, …), and where no GPU is why, its code
    /// (``NoGPUReason``, as `kiln devices --json` says it) for scripts; `end` follows.
    func error(_ message: String, reasonCode: String?)
    /// The job ended with this exit code; `earlier` is what earlier runs of a resumed job had done;
    /// `traffic` is what this run moved between host and device.
    func end(_ counts: ExportJob.Counts, earlier: ExportJob.Counts, total: Int, exitCode: Int32, traffic: DeviceTraffic)
}

extension ExportReporter {
    /// Why the job cannot start or go on, where no GPU is not the reason.
    func error(_ message: String) {
        error(message, reasonCode: nil)
    }

    /// Reports why a job cannot start, ends the stream, and returns `code` for the caller to throw.
    func refusal(_ message: String, _ code: ExitCode, reasonCode: String? = nil) -> ExitCode {
        error(message, reasonCode: reasonCode)
        endWithNothingDone(code)
        return code
    }

    /// Ends the stream of a job that did no image (refused, stopped while it waited, nothing left to do).
    func endWithNothingDone(_ code: ExitCode) {
        end(ExportJob.Counts(), earlier: ExportJob.Counts(), total: 0, exitCode: code.rawValue, traffic: DeviceTraffic())
    }
}

extension ExpirationReason {
    /// Why the job stops, in a person's words: the bar's and stderr's, and the JSON
    /// `stopping` event's `message` (its `reason` is the case's name, for scripts).
    var sentence: String {
        switch self {
        case .userCancelled: return "cancelled"
        case .systemTermination: return "the system asked kiln to stop"
        case .hangUp: return "the terminal closed (SIGHUP)"
        case .stalled: return "no progress for the stall timeout"
        case .declinedWhenSlow: return "slower than expected"
        }
    }
}
