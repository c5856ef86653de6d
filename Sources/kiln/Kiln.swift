import ArgumentParser
import Export

/// `kiln`: batch image export (PNG, JPEG, WebP) as a continued-processing task.
@main
struct Kiln: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiln",
        abstract: "Export batches of PNG, JPEG and WebP images: decode, render, compress.",
        discussion: """
        Exit codes:
          0   every output written (or already there)
          1   some inputs failed or conflict with existing outputs; the rest were
              written (also status/cancel with no job to act on or a journal
              that cannot be read)
          64  usage error (bad flag, bad value, bad recipe, unusable output
              directory, an input named on the command line missing or
              unreadable, a bad - list, no images found)
          69  a required resource is unavailable (e.g. --device gpu without a GPU),
              the job could not start at once under --strategy fail, another
              process runs the same job or shard, the slot folder is not yours
              alone (set KILN_RUNTIME_DIR), or kiln cancel could not verify the
              job's process
          75  cancelled or expired (also a full disk, or a journal that cannot be
              written); resumable
        """,
        version: KilnVersion.description,
        subcommands: [ExportCommand.self, ResumeCommand.self, StatusCommand.self, CancelCommand.self, Devices.self]
    )

    /// Parses and runs the command line, first suggesting the nearest command for a misspelled one.
    static func main() async {
        // Batch durability holds staged outputs open; the commit sizes itself to the limit, raised first.
        OpenFiles.raiseSoftLimit()
        let names = configuration.subcommands.compactMap { $0.configuration.commandName }
        let arguments = EmptyOptionValue.split(Array(CommandLine.arguments.dropFirst()), commands: configuration.subcommands)
        if let message = CommandSuggestion.message(for: arguments, commands: names) ?? DashedName.message(for: arguments)
            ?? TextOptionValue.message(for: arguments)
            ?? RepeatedOption.message(for: arguments, commands: configuration.subcommands) {
            exit(withError: ValidationError(message))
        }
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ValidationError {
            // A usage error quotes what was given (a path, a title): control characters in it shown as `\xHH`.
            exit(withError: ValidationError(TextReporter.visible(error.message)))
        } catch {
            exit(withError: error)
        }
    }
}
