import ArgumentParser
import ContinuedProcessing
import Export

/// The options that govern how a job runs (not what it produces), shared by
/// `kiln export` and `kiln resume`.
struct RunSettings: ParsableArguments {
    /// How progress is shown.
    enum ProgressMode: String, ExpressibleByArgument, CaseIterable {
        case auto, bar, plain, json, none
    }

    /// Where else the job is shown, outside the terminal.
    enum NotifyMode: String, ExpressibleByArgument, CaseIterable {
        case auto, desktop, none
    }

    /// What to do when another kiln job holds the machine's slot.
    enum Strategy: String, ExpressibleByArgument, CaseIterable {
        case queue, fail
    }

    // Optional so that an explicit `--strategy queue` can be told from the default: only then does a
    // second process on a busy job or shard wait for it (by default it exits 69 at once).
    @Option(help: ArgumentHelp("When another kiln job holds the GPU slot (or the CPU slots): queue (wait, the default) or fail (exit 69). A second process on the same job or shard exits 69 unless queue is given explicitly, then waits.", valueName: "strategy"))
    var strategy: Strategy?

    @Option(help: "Progress display: auto (the bar when standard error is a terminal, json when neither standard output nor standard error is, else plain), bar, plain (lines on standard error: the header, failures, warnings, the progress every 10 seconds, the summary), json or none.")
    var progress: ProgressMode = .auto

    @Option(help: ArgumentHelp("Desktop notification of the job's progress, with a Cancel action (a KDE job view with Cancel and Pause/Resume where one is served): auto (when a session bus exists and no progress bar is drawn on a terminal), desktop or none.", valueName: "mode"))
    var notify: NotifyMode = .auto

    @Option(name: .customLong("stall-timeout"), parsing: .unconditional, help: "Seconds without progress before the job expires (resumable), 0.001…31536000 (a year; default 60).",
            transform: NumberArgument.decimal)
    var stallTimeout: Double = 60

    @Option(parsing: .unconditional, help: "Seconds a stopping job (Ctrl-C, kiln cancel, SIGTERM, SIGHUP, stall) has to finish the images in flight; they are then left for resume; 0…31536000 (a year; default 5).",
            transform: NumberArgument.decimal)
    var grace: Double = 5

    @Option(help: ArgumentHelp(
        "How finished outputs are made durable: full, batch or none.",
        discussion: """
        full: each output and its journal record flushed (fdatasync) before the next image. \
        batch (default): flushed together (one syncfs of the output's file system, then the journal), \
        per up to 128 images or 100 ms; an image is reported only once flushed. Both survive kill -9 and power loss: kiln resume redoes what was lost. \
        none: never flushed, for scratch outputs; survives kill -9, not power loss.
        """))
    var durability: Durability = .batch

    @Flag(help: "Print only failures and warnings.")
    var quiet = false

    @Option(parsing: .unconditional, help: ArgumentHelp("The most memory the job may use, e.g. 300M or 4G (default: half of the machine's memory or of its cgroup's limit: a container's, a Slurm job's; `kiln status` shows it).",
                               discussion: "Images stream in strips, so memory follows width, not area; before starting an image a worker estimates its working set and waits while it would not fit. An image that cannot fit alone fails, saying how much it needs.",
                               valueName: "size"))
    var memory: String?

    /// The budget in bytes: `--memory`, else the default share of the machine's or the cgroup's limit.
    var memoryBudget: Int { memory.flatMap(ByteSize.parse) ?? MemoryLimit.defaultBudget }

    func validate() throws {
        // Bounded (and NaN refused) so that the conversion to a Duration below cannot trap; at least
        // a millisecond, its resolution (a stall interval of 0 ms made the watchdog spin, the job hang).
        guard (0.001...Self.longestWait).contains(stallTimeout) else {
            throw ValidationError("--stall-timeout must be 0.001…\(Int(Self.longestWait)) seconds (a year at most), not \(stallTimeout)")
        }
        if let memory, ByteSize.parse(memory) == nil {
            throw ValidationError("--memory must be a size such as 300M, 4G or 1073741824, not \"\(memory)\"")
        }
        guard (0...Self.longestWait).contains(grace) else {
            throw ValidationError("--grace must be 0…\(Int(Self.longestWait)) seconds (a year), not \(grace)")
        }
    }

    /// The longest `--stall-timeout` or `--grace`, in seconds: a year.
    static let longestWait: Double = 365 * 24 * 3600

    /// The reporter for these settings. The bar is drawn on standard error, so
    /// only when standard error is a terminal: never escape codes into a file or pipe.
    /// `auto` is JSON on stdout for a script (stdout not a terminal), else text.
    func makeReporter() -> any ExportReporter {
        switch progress {
        case .json: return JSONReporter()
        case .none: return TextReporter(showBar: false, quiet: true)
        case .bar: return TextReporter(showBar: showsBar, quiet: quiet)
        case .plain: return TextReporter(showBar: false, quiet: quiet)
        case .auto:
            // JSON is for scripts reading stdout; --quiet asks for silence instead.
            if quiet { return TextReporter(showBar: false, quiet: true) }
            if OutputStream.standardOutput.isTerminal || showsBar { return TextReporter(showBar: showsBar, quiet: false) }
            return JSONReporter()
        }
    }

    /// Whether the reporter draws the bar: `bar` or `auto` (not `--quiet`), with standard error a terminal.
    var showsBar: Bool {
        guard OutputStream.standardError.isTerminal else { return false }
        return progress == .bar || (progress == .auto && !quiet)
    }

    /// The scheduler configuration for these settings.
    var schedulerConfiguration: TaskScheduler.Configuration {
        var configuration = TaskScheduler.Configuration()
        configuration.stallInterval = .milliseconds(Int64(stallTimeout * 1000))
        configuration.expirationGrace = .milliseconds(Int64(grace * 1000))
        return configuration
    }
}

extension Durability: ExpressibleByArgument {}
