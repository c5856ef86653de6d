import Export

/// Shows a running export to a person or a script. Called from several threads.
protocol ExportReporter: Sendable {
    /// The job starts: how many images, on which device, under which title.
    func start(total: Int, device: String, title: String, subtitle: String)
    /// The job waits for a machine slot at this 1-based queue position.
    func queued(position: Int)
    /// One input finished.
    func file(_ result: FileResult)
    /// Something the user should know that is not a per-file failure.
    func warning(_ message: String)
    /// Called about ten times a second while the job runs.
    func tick(_ snapshot: ProgressSnapshot)
    /// The task is expiring: it finishes what is in flight and stops.
    func stopping(reason: String)
    /// The job ended with this exit code.
    func end(_ counts: ExportJob.Counts, total: Int, exitCode: Int32)
}
