import ArgumentParser
import Compute
import Devices
import Export
import Foundation
import Render

/// `kiln export <inputs>... --output <dir>`: the batch export of SPEC §5.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export PNG images into an output directory.",
        discussion: """
        Inputs are files, directories (only their *.png files; subdirectories with \
        --recursive), or - to read paths from standard input, one per line. Outputs \
        mirror each input's relative path under --output with the extension .png. \
        Inputs are never overwritten; existing outputs are skipped unless --overwrite. \
        Every output is written to a temporary file and renamed into place.

        Exit codes: 0 all written, 1 some inputs failed, 64 usage error, \
        69 required resource unavailable, 75 cancelled or expired (resumable).
        """
    )

    /// How progress is shown.
    enum ProgressMode: String, ExpressibleByArgument, CaseIterable {
        case auto, bar, json, none
    }

    @Argument(help: "PNG files, directories, or - for a list of paths on stdin.")
    var inputs: [String]

    @Option(name: [.short, .long], help: "The output directory (created if missing).")
    var output: String

    @OptionGroup(title: "Operations")
    var render: OperationOptions

    @Option(help: "Where to render: auto, gpu, vulkan or cpu.")
    var device: DevicePreference = .auto

    @Option(help: "Images processed at once (default: the number of cores).")
    var jobs: Int = ExportOptions.defaultJobs

    @Option(help: "Progress display: auto (bar on a terminal, json otherwise), bar, json or none.")
    var progress: ProgressMode = .auto

    @Option(name: .customLong("max-pixels"), help: "Reject images with more pixels than this before decoding them.")
    var maxPixels: Int = 268_000_000

    @Flag(help: "Replace existing outputs, and allow exporting into an input directory.")
    var overwrite = false

    @Flag(help: "Descend into subdirectories of directory inputs.")
    var recursive = false

    @Flag(help: "Print only failures and warnings.")
    var quiet = false

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        guard maxPixels >= 1 else { throw ValidationError("--max-pixels must be at least 1") }
    }

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        let plan = try render.resolve()
        var options = ExportOptions(inputs: inputs, outputDirectory: output)
        options.plan = plan
        options.overwrite = overwrite
        options.recursive = recursive
        options.maxPixels = maxPixels
        options.jobs = jobs

        let choice: BackendChoice
        do {
            choice = try BackendSelector.choose(device)
        } catch {
            FileHandle.standardError.write(Data("kiln: \(error)\n".utf8))
            throw KilnExitCode.unavailable
        }

        let outputDirectory: OutputDirectory
        do {
            try OutputSafety.check(options)
            outputDirectory = try OutputDirectory(path: output)
        } catch {
            throw ValidationError("\(error)")
        }

        let reporter = makeReporter()
        let items = InputCollector(options: options).collect()
        let renderer = Renderer(backend: choice.backend, operations: plan.operations, allowFallback: device != .gpu,
                                warn: { reporter.warning($0) })
        let job = ExportJob(options: options, items: items, output: outputDirectory,
                            renderer: renderer, onResult: { reporter.file($0) })

        // The device line says which and why ("CPU (no Vulkan driver)"), once.
        reporter.start(total: items.count, device: choice.note ?? choice.backend.label)
        let counts = await runReporting(job, reporter: reporter)
        let code: ExitCode = job.stoppedBecause != nil ? KilnExitCode.resumable
            : counts.failed > 0 ? KilnExitCode.someFailed : KilnExitCode.success
        if let reason = job.stoppedBecause { reporter.warning(reason) }
        reporter.end(counts, total: items.count, exitCode: code.rawValue)
        if code != KilnExitCode.success { throw code }
    }

    /// Runs the blocking job on its own thread while the reporter ticks.
    private func runReporting(_ job: ExportJob, reporter: any ExportReporter) async -> ExportJob.Counts {
        let total = job.items.count
        let ticker = Task {
            while !Task.isCancelled {
                reporter.tick(job.counts, total: total)
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        let counts = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: job.run()) }
        }
        ticker.cancel()
        return counts
    }

    private func makeReporter() -> any ExportReporter {
        switch progress {
        case .json: return JSONReporter()
        case .none: return TextReporter(showBar: false, quiet: true)
        case .bar: return TextReporter(showBar: true, quiet: quiet)
        case .auto:
            // JSON is for scripts reading stdout; --quiet asks for silence instead.
            if quiet { return TextReporter(showBar: false, quiet: true) }
            return OutputStream.standardOutput.isTerminal ? TextReporter(showBar: true, quiet: false) : JSONReporter()
        }
    }
}

extension DevicePreference: ExpressibleByArgument {}
