import ArgumentParser
import Foundation

/// The options a command declares (not its flags), as ArgumentParser describes the tool (`--experimental-dump-help`),
/// for the checks that read a command line before ArgumentParser does (``RepeatedOption``, ``EmptyOptionValue``):
/// which names take a value, and which take the next argument whatever it is. Read only when a check needs it:
/// about 1.7 ms.
enum OptionDeclarations {
    /// An option as the command declares it.
    struct Option {
        /// Its name as help shows it: the long one where it has one.
        let shown: String
        /// Whether it takes the next argument as its value whatever that is (`parsing: .unconditional`).
        let unconditional: Bool
    }

    /// The options of the subcommand `arguments` names first, one of `commands`, by each of their names (`--output`,
    /// `-o`); an option declared to repeat (an array) is left out, as it takes each value given. Nil when the first
    /// argument names none of them.
    static func options(for arguments: [String], among commands: [any ParsableCommand.Type]) -> [String: Option]? {
        guard let name = arguments.first, let command = commands.first(where: { $0.configuration.commandName == name }),
              let tool = try? JSONDecoder().decode(ToolDescription.self, from: Data(command._dumpHelp().utf8)) else {
            return nil
        }
        var options: [String: Option] = [:]
        for argument in tool.command.arguments ?? [] where argument.kind == "option" && argument.isRepeating != true {
            let names = (argument.names ?? []).map { ($0.kind == "short" ? "-" : "--") + $0.name }
            guard let shown = names.first(where: { $0.hasPrefix("--") }) ?? names.first else { continue }
            let option = Option(shown: shown, unconditional: argument.parsingStrategy == "unconditional")
            for name in names { options[name] = option }
        }
        return options
    }

    /// The part of ArgumentParser's description of a command read here.
    private struct ToolDescription: Decodable {
        struct Command: Decodable {
            let arguments: [Argument]?
        }

        struct Argument: Decodable {
            struct Name: Decodable {
                let kind: String
                let name: String
            }

            let kind: String
            let names: [Name]?
            let parsingStrategy: String?
            let isRepeating: Bool?
        }

        let command: Command
    }
}
