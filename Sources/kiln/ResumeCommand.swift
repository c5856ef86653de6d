import ArgumentParser
import Export
import VulkanCompute
import Foundation

/// `kiln resume <output dir>`: continues a cancelled, expired or killed job.
struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Continue a stopped export where it left off.",
        discussion: """
        Re-runs the job recorded in DIR/.kiln with its original options. Outputs the \
        journal records as finished are verified (size and CRC-32) and kept; everything \
        else is done again, so the result is what an uninterrupted run would have made. \
        The Running options below are this run's own, not the export's (--memory, \
        --stall-timeout, --grace, …): give them again, or their defaults apply.
        Exit codes as for export.
        """
    )

    @Argument(help: "The output directory of the job.")
    var directory: String

    @Option(parsing: .unconditional, help: ArgumentHelp("The shard to continue, of a job split with export --shard (lifts the mark of kiln cancel).", valueName: "K/N"))
    var shard: String?

    @OptionGroup(title: "Running")
    var settings: RunSettings

    func run() async throws {
        StartSignals.begin()
        let reporter = settings.makeReporter()
        let spec: ShardSpec?
        do {
            spec = try shard.map { try ShardSpec.parse($0) }
        } catch {
            throw reporter.refusal("\(error)", KilnExitCode.usage)
        }
        if spec == nil, ShardLayout.isSharded(directory), (try? Journal(outputDirectory: directory).job()) == nil {
            let shards = ShardLayout.shards(in: directory).map(\.description).joined(separator: ", ")
            throw reporter.refusal("\(directory) holds a job split into shards (\(shards)): continue one with "
                                   + "`kiln resume \(directory) --shard K/N`, or run its export command again",
                                   KilnExitCode.usage)
        }
        let record: JobRecord
        do {
            // The journal is untrusted input: it is placed in the folder named here, whatever it says
            // (a copied or moved output folder resumes where it now is), and every field is checked.
            // Absolute: the job runs from the directory it was started in (relative inputs, watermarks).
            let here = directory.hasPrefix("/") ? directory
                : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(directory)
            record = try Journal(outputDirectory: directory, shard: spec).job().placed(in: here, shard: spec)
        } catch JournalError.noJob(_) where spec != nil {
            throw noShardJournal(spec!, reporter: reporter)
        } catch {
            throw reporter.refusal("\(error)", KilnExitCode.someFailed)
        }
        guard DevicePreference(rawValue: record.device) != nil else {
            throw reporter.refusal("cannot read the journal \(directory)/.kiln/job.json: device must be auto, gpu, "
                                   + "vulkan or cpu, not \(record.device)", KilnExitCode.someFailed)
        }
        // Resuming a shard is asking for the work again: a cancel of the whole job no longer applies
        // (lifted by the run, once it holds its slot and lock).
        // Inputs and watermarks may be relative to where the job started.
        guard FileManager.default.changeCurrentDirectoryPath(record.workingDirectory) else {
            throw reporter.refusal("cannot enter \(record.workingDirectory), where the job was started: "
                                   + String(cString: strerror(errno)), KilnExitCode.unavailable)
        }
        // From the working directory, where relative profile paths were given; before the job writes anything.
        try JobRunner.checkFiles(of: record, reporter: reporter)
        var runner = JobRunner(record: record, resuming: true, settings: settings, reporter: reporter)
        runner.shownDirectory = directory
        try await runner.run()
    }

    /// `--shard K/N` names a shard with no journal: the job is not split into shards (say so), or this shard
    /// never started. Then there is nothing to resume, but a cancel of the whole job is lifted all the same,
    /// as for a started shard: the export command of the shard, which the mark stopped, starts it (exit 0).
    private func noShardJournal(_ spec: ShardSpec, reporter: any ExportReporter) -> ExitCode {
        guard access(directory, F_OK) == 0 else {
            return reporter.refusal("there is no folder \(directory)", KilnExitCode.someFailed)
        }
        if !ShardLayout.isSharded(directory), (try? Journal(outputDirectory: directory).job()) != nil {
            return reporter.refusal("\(directory) holds a job that is not split into shards: `kiln resume \(directory)` "
                                    + "continues it", KilnExitCode.usage)
        }
        // Shards of another split only (`--shard 2/4` where the job was split into 3): said so, not "not started".
        let counts = Set(ShardLayout.shards(in: directory).map(\.count))
        if !counts.isEmpty, !counts.contains(spec.count) {
            let splits = counts.sorted().map(String.init).joined(separator: " and ")
            return reporter.refusal("the job in \(directory) is split into \(splits) shards, not \(spec.count): "
                                    + "`kiln resume \(directory) --shard K/\(counts.sorted().last!)` continues one", KilnExitCode.usage)
        }
        guard let mark = ShardLayout.cancelMark(directory) else {
            return reporter.refusal("shard \(spec) of the job in \(directory) has not started, so there is nothing to "
                                    + "resume: the job's `kiln export … --shard \(spec)` starts it", KilnExitCode.someFailed)
        }
        ShardLayout.liftCancel(directory)
        reporter.warning("shard \(spec) of the job in \(directory) has not started, so there is nothing to resume; the job "
                         + "was \(mark), and that mark is lifted: the job's `kiln export … --shard \(spec)` starts the shard")
        reporter.endWithNothingDone(.success)
        return ExitCode.success
    }
}
