import Export

/// Shows a running export to a person or a script. Called from several threads.
protocol ExportReporter: Sendable {
    /// The job starts: how many images, on which device.
    func start(total: Int, device: String)
    /// One input finished.
    func file(_ result: FileResult)
    /// Something the user should know that is not a per-file failure.
    func warning(_ message: String)
    /// Called periodically while the job runs, with the totals so far.
    func tick(_ counts: ExportJob.Counts, total: Int)
    /// The job ended with this exit code.
    func end(_ counts: ExportJob.Counts, total: Int, exitCode: Int32)
}
