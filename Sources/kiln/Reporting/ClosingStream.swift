import ArgumentParser
import Export
import Locking

/// The reporter of a started job, closed exactly once: `end` is the last
/// event whatever path the job leaves by (normal end, refusal, second Ctrl-C),
/// and a worker finishing an image after that is not reported.
final class ClosingStream: Sendable {
    private let reporter: any ExportReporter
    private let job: ExportJob
    private let presentation: JobPresentation
    private let closed = Locked(false)
    /// What shows the job's last frame at once (the progress observer's, once it follows the job).
    private let lastFrame = Locked<(@Sendable () -> Void)?>(nil)

    /// `presentation`: the job as the system's views show it, ended with the stream.
    init(reporter: any ExportReporter, job: ExportJob, presentation: JobPresentation) {
        self.reporter = reporter
        self.job = job
        self.presentation = presentation
    }

    /// Reports one finished input (after its warnings), unless the stream is closed.
    func file(_ result: FileResult) {
        closed.withLock { closed in
            guard !closed else { return }
            result.warnings.forEach(reporter.warning)
            reporter.file(result)
        }
    }

    /// Reports `message`: in the stream while it is open; after `end`, which is the last event, on
    /// standard error as a line (a slow notification server's warning once a short job ended).
    func warning(_ message: String) {
        let late = closed.withLock { closed in
            if !closed { reporter.warning(message) }
            return closed
        }
        if late { OutputStream.standardError.write("kiln: warning: \(TextReporter.visible(message))\n") }
    }

    /// Notes what shows the job's last frame (``closeNow(_:)``).
    func showsLastFrame(_ show: @escaping @Sendable () -> Void) {
        lastFrame.withLock { $0 = show }
    }

    /// ``close(_:error:)`` after the job's last frame, shown at once: a second Ctrl-C ends the process before the
    /// progress observer's last frame, which `end` follows otherwise.
    func closeNow(_ code: ExitCode) -> ExitCode {
        if !closed.withLock({ $0 }) { lastFrame.withLock { $0 }?() }
        return close(code)
    }

    /// Reports `error` (if any) and `end` with `code`, once, then shows the end outside the terminal
    /// (``JobPresentation/end(_:fraction:exitCode:summary:)``); returns `code` for the caller to throw.
    func close(_ code: ExitCode, error: String? = nil) -> ExitCode {
        let first = closed.withLock { closed in
            guard !closed else { return false }
            closed = true
            if let error { reporter.error(error) }
            reporter.end(job.counts, earlier: job.earlier, total: job.items.count, exitCode: code.rawValue,
                         traffic: job.deviceTraffic)
            return true
        }
        if first {
            let summary = TextReporter.summary(job.counts, earlier: job.earlier, total: job.items.count, elapsed: nil,
                                               exitCode: code.rawValue)
            let (counts, fraction) = job.snapshot
            presentation.end(counts, fraction: fraction, exitCode: code.rawValue, summary: summary)
        }
        return code
    }
}
