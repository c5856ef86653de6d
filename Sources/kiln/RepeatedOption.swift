import ArgumentParser
import Foundation

/// An option given twice: ArgumentParser keeps the last value without a word, so `--rotate 90 --rotate 90` turned
/// each image once, `--flip h --flip v` only mirrored it top to bottom, and `-o a -o b` wrote into `b` (found
/// 2026-11-28). Kiln applies each operation once, in a fixed order, and takes one value of each option, so a second
/// one is refused first (exit 64), naming the option and both values. A flag given twice says what it says once,
/// and is let be.
///
/// Which arguments are options, and which of them take the next argument whatever it is (`--brightness -0.5`), is
/// read from the command's own declarations (ArgumentParser's description of the tool), and only once a name is
/// seen twice: a value (`--title=--rotate`) or an input after `--` is never taken for an option. (Rejected:
/// declaring every option an array and refusing more than one value, whose help and usage would then say that the
/// option repeats; and a list of the names kept by hand, which the next option would be missing from.)
enum RepeatedOption {
    /// The message for the first option of `arguments` (the subcommand's name first) given twice before `--`, when
    /// the subcommand is one of `commands`; nil when there is none.
    static func message(for arguments: [String], commands: [any ParsableCommand.Type]) -> String? {
        guard let name = arguments.first,
              let command = commands.first(where: { $0.configuration.commandName == name }) else { return nil }
        let given = Array(arguments.dropFirst().prefix(while: { $0 != "--" }))
        // Most command lines repeat no name at all: the command's declarations are read only for one that does, or
        // that gives a short name (`-o` is `--output`). Reading them costs about 1.7 ms (an export of an 8 × 8 image
        // with `-o`, 26.1 ms against 24.4 with `--output`); rejected: guessing a short name's long one by its first
        // letter, which an option named otherwise would slip past.
        var seen = Set<String>()
        guard given.flatMap(names).contains(where: { !$0.hasPrefix("--") || !seen.insert($0).inserted }),
              let declared = declarations(of: command) else { return nil }
        var values: [String: String] = [:]
        var index = 0
        while index < given.count {
            let argument = given[index]
            index += 1
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            let keys = names(in: parts[0])
            for (position, key) in keys.enumerated() {
                guard let option = declared[key] else { continue }
                // A short option inside a group (`-oout`) is ArgumentParser's to refuse or read; this scan leaves it.
                if !parts[0].hasPrefix("--"), position < keys.count - 1 { break }
                var value = parts.count == 2 ? parts[1] : ""
                if parts.count == 1, index < given.count,
                   option.unconditional || !given[index].hasPrefix("-") || Double(given[index]) != nil {
                    value = given[index]
                    index += 1
                }
                if let first = values[option.shown] {
                    return "\(option.shown) is given twice (\(first), then \(value)): kiln takes one value of each option"
                        + (name == "export" ? " (and applies each operation once, in a fixed order)" : "") + "; give it once"
                }
                values[option.shown] = value
                break  // A short option takes the rest of its group's arguments: none of the group follows it.
            }
        }
        return nil
    }

    /// The option and flag names `argument` gives before `--`: `--name` (or `--name=value`) gives `--name`, a group
    /// of short flags `-0o` gives `-0` and `-o`; a value (`-0.5`) or an input gives none.
    private static func names(in argument: String) -> [String] {
        if argument.hasPrefix("--") { return [String(argument.prefix { $0 != "=" })] }
        guard argument.count > 1, argument.hasPrefix("-"), Double(argument) == nil else { return [] }
        return argument.dropFirst().map { "-\($0)" }
    }

    /// An option as the command declares it.
    private struct Option {
        /// Its name as help shows it: the long one where it has one.
        let shown: String
        /// Whether it takes the next argument as its value whatever that is (`parsing: .unconditional`).
        let unconditional: Bool
    }

    /// The options `command` declares (not its flags), by each of their names (`--output`, `-o`).
    private static func declarations(of command: any ParsableCommand.Type) -> [String: Option]? {
        guard let tool = try? JSONDecoder().decode(ToolDescription.self, from: Data(command._dumpHelp().utf8)) else {
            return nil
        }
        var options: [String: Option] = [:]
        // An option declared to repeat (an array) takes each value given.
        for argument in tool.command.arguments ?? [] where argument.kind == "option" && argument.isRepeating != true {
            let names = (argument.names ?? []).map { ($0.kind == "short" ? "-" : "--") + $0.name }
            guard let shown = names.first(where: { $0.hasPrefix("--") }) ?? names.first else { continue }
            let option = Option(shown: shown, unconditional: argument.parsingStrategy == "unconditional")
            for name in names { options[name] = option }
        }
        return options
    }

    /// The part of ArgumentParser's description of a command (`--experimental-dump-help`) read here.
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
