import ArgumentParser
import Compute
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

        The job runs as a continued-processing task: Ctrl-C (or `kiln cancel DIR`) \
        and SIGTERM stop it gracefully, a second Ctrl-C stops at once; `kiln resume \
        DIR` finishes it. Only one job uses the GPU at a time (and, by default, one \
        the CPU: KILN_CPU_SLOTS sets how many); --strategy says whether to wait.

        Exit codes: 0 all written, 1 some inputs failed, 64 usage error, \
        69 required resource unavailable or not immediately available under \
        --strategy fail, 75 cancelled or expired (resumable).
        """
    )

    @Argument(help: "PNG files, directories, or - for a list of paths on stdin.")
    var inputs: [String]

    @Option(name: [.short, .long], help: "The output directory (created if missing).")
    var output: String

    @Option(help: "Where to render: auto, gpu, vulkan or cpu.")
    var device: DevicePreference = .auto

    @Option(help: "Images processed at once (default: the number of cores).")
    var jobs: Int = ExportOptions.defaultJobs

    @Option(help: "The title shown while exporting (default: \"Exporting N images\").")
    var title: String?

    @Option(help: "The subtitle shown while exporting (default: operations, level and device).")
    var subtitle: String?

    @Option(name: .customLong("max-pixels"), help: "The most pixels of any image a job reads or makes (inputs, intermediates, outputs), \(ParameterRanges.pixels.text); larger inputs are rejected before decoding.")
    var maxPixels: Int = 268_000_000

    @Flag(help: "Replace existing outputs, and allow exporting into an input directory.")
    var overwrite = false

    @Flag(help: "Descend into subdirectories of directory inputs.")
    var recursive = false

    @OptionGroup(title: "Operations")
    var render: OperationOptions

    @OptionGroup(title: "Running")
    var settings: RunSettings

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        guard ParameterRanges.pixels.bounds.contains(maxPixels) else {
            throw ValidationError("--max-pixels must be \(ParameterRanges.pixels.text), not \(maxPixels)")
        }
    }

    func run() async throws {
        var options = ExportOptions(inputs: inputs, outputDirectory: output)
        options.plan = try render.resolve(maxPixels: maxPixels)
        options.overwrite = overwrite
        options.recursive = recursive
        options.maxPixels = maxPixels
        options.jobs = jobs
        do {
            try OutputSafety.check(options)
        } catch {
            throw ValidationError("\(error)")
        }
        let items = InputCollector(options: options).collect()
        let record = JobRecord(id: Self.newJobID(), options: options, device: device.rawValue,
                               title: title, subtitle: subtitle, items: items)
        try await JobRunner(record: record, resuming: false, settings: settings).run()
    }

    /// A short unique job id (time + random), also the task identifier suffix.
    private static func newJobID() -> String {
        String(Int(Date().timeIntervalSince1970), radix: 36) + "-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
    }
}

extension DevicePreference: ExpressibleByArgument {}
