import ArgumentParser
import Foundation

/// An option given twice: ArgumentParser keeps the last value without a word, so `--rotate 90 --rotate 90` turned
/// each image once, `--flip h --flip v` only mirrored it top to bottom, and `-o a -o b` wrote into `b` (found
/// 2026-11-28). Kiln applies each operation once, in a fixed order, and takes one value of each option, so a second
/// one is refused first (exit 64), naming the option and both values. A flag given twice says what it says once,
/// and is let be.
///
/// Which arguments are options, and which of them take the next argument whatever it is (`--brightness -0.5`), is
/// read from the command's own declarations (``OptionDeclarations``), and only once a name is
/// seen twice: a value (`--title=--rotate`) or an input after `--` is never taken for an option. (Rejected:
/// declaring every option an array and refusing more than one value, whose help and usage would then say that the
/// option repeats; and a list of the names kept by hand, which the next option would be missing from.)
enum RepeatedOption {
    /// The message for the first option of `arguments` (the subcommand's name first) given twice before `--`, when
    /// the subcommand is one of `commands`; nil when there is none.
    static func message(for arguments: [String], commands: [any ParsableCommand.Type]) -> String? {
        guard let name = arguments.first, commands.contains(where: { $0.configuration.commandName == name }) else {
            return nil
        }
        let given = Array(arguments.dropFirst().prefix(while: { $0 != "--" }))
        // Most command lines repeat no name at all: the command's declarations are read only for one that does, or
        // that gives a short name (`-o` is `--output`). Reading them costs about 1.7 ms (an export of an 8 × 8 image
        // with `-o`, 26.1 ms against 24.4 with `--output`); rejected: guessing a short name's long one by its first
        // letter, which an option named otherwise would slip past.
        var seen = Set<String>()
        guard given.flatMap(names).contains(where: { !$0.hasPrefix("--") || !seen.insert($0).inserted }),
              let declared = OptionDeclarations.options(for: arguments, among: commands) else { return nil }
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
}
