import ArgumentParser
import ContinuedProcessing

/// The options that govern how a job runs (not what it produces), shared by
/// `kiln export` and `kiln resume`.
struct RunSettings: ParsableArguments {
    /// How progress is shown.
    enum ProgressMode: String, ExpressibleByArgument, CaseIterable {
        case auto, bar, json, none
    }

    /// What to do when another kiln job holds the machine's slot.
    enum Strategy: String, ExpressibleByArgument, CaseIterable {
        case queue, fail
    }

    @Option(help: "When another kiln job holds the GPU slot (or the CPU slots): queue (wait) or fail (exit 69).")
    var strategy: Strategy = .queue

    @Option(help: "Progress display: auto (bar on a terminal, json otherwise), bar, json or none.")
    var progress: ProgressMode = .auto

    @Option(name: .customLong("stall-timeout"), parsing: .unconditional, help: "Seconds without progress before the job expires (resumable).")
    var stallTimeout: Double = 60

    @Option(parsing: .unconditional, help: "Seconds a stopping job (Ctrl-C, kiln cancel, SIGTERM, stall) has to finish the images in flight; they are then left for resume.")
    var grace: Double = 5

    @Flag(help: "Print only failures and warnings.")
    var quiet = false

    func validate() throws {
        guard stallTimeout > 0 else { throw ValidationError("--stall-timeout must be positive") }
        guard grace >= 0 else { throw ValidationError("--grace must not be negative") }
    }

    /// The reporter for these settings. The bar is drawn on standard error, so
    /// only when standard error is a terminal: never escape codes into a file or pipe.
    /// `auto` is JSON on stdout for a script (stdout not a terminal), else text.
    func makeReporter() -> any ExportReporter {
        let barFits = OutputStream.standardError.isTerminal
        switch progress {
        case .json: return JSONReporter()
        case .none: return TextReporter(showBar: false, quiet: true)
        case .bar: return TextReporter(showBar: barFits, quiet: quiet)
        case .auto:
            // JSON is for scripts reading stdout; --quiet asks for silence instead.
            if quiet { return TextReporter(showBar: false, quiet: true) }
            if OutputStream.standardOutput.isTerminal || barFits { return TextReporter(showBar: barFits, quiet: false) }
            return JSONReporter()
        }
    }

    /// The scheduler configuration for these settings.
    var schedulerConfiguration: TaskScheduler.Configuration {
        var configuration = TaskScheduler.Configuration()
        configuration.stallInterval = .milliseconds(Int64(stallTimeout * 1000))
        configuration.expirationGrace = .milliseconds(Int64(grace * 1000))
        return configuration
    }
}
