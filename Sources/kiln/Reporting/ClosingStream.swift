import ArgumentParser
import Export
import Locking

/// The reporter of a started job, closed exactly once: `end` is the last
/// event whatever path the job leaves by (normal end, refusal, second Ctrl-C),
/// and a worker finishing an image after that is not reported.
final class ClosingStream: Sendable {
    private let reporter: any ExportReporter
    private let job: ExportJob
    private let closed = Locked(false)

    init(reporter: any ExportReporter, job: ExportJob) {
        self.reporter = reporter
        self.job = job
    }

    /// Reports one finished input (after its warnings), unless the stream is closed.
    func file(_ result: FileResult) {
        closed.withLock { closed in
            guard !closed else { return }
            result.warnings.forEach(reporter.warning)
            reporter.file(result)
        }
    }

    /// Reports `error` (if any) and `end` with `code`, once; returns `code` for the caller to throw.
    func close(_ code: ExitCode, error: String? = nil) -> ExitCode {
        closed.withLock { closed in
            guard !closed else { return }
            closed = true
            if let error { reporter.error(error) }
            reporter.end(job.counts, earlier: job.earlier, total: job.items.count, exitCode: code.rawValue)
        }
        return code
    }
}
