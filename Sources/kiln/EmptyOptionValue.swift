import ArgumentParser

/// `--title=`, an empty value written with `=` (a script's `--title="$T"` with `T` unset): ArgumentParser reads it
/// as no value at all and takes the next argument instead (`--title= --rotate=90` made the title "--rotate=90" and
/// turned nothing, exit 0; `--keep= in/a.png` took the input for the list). Written as two arguments, `--title ""`,
/// an empty value is a value, so the one form is made the other before anything reads the command line (found
/// 2026-11-28). Only for the command's options (``OptionDeclarations``): a flag written so (`--lossless=`) is the
/// flag, as ArgumentParser reads it, not the flag and an empty input.
enum EmptyOptionValue {
    /// `arguments` (the subcommand's name first, one of `commands`) with each `--name=` of an option before `--`
    /// as `--name` and an empty argument.
    static func split(_ arguments: [String], commands: [any ParsableCommand.Type]) -> [String] {
        func empty(_ argument: String) -> Bool {
            argument.count > 3 && argument.hasPrefix("--") && argument.hasSuffix("=")
                && argument.dropFirst(2).dropLast().allSatisfy { $0 != "=" }
        }
        // Most command lines have no such argument: the declarations are read only for one that does.
        let given = arguments.prefix { $0 != "--" }
        guard given.contains(where: empty),
              let options = OptionDeclarations.options(for: arguments, among: commands) else { return arguments }
        return given.flatMap { empty($0) && options[String($0.dropLast())] != nil ? [String($0.dropLast()), ""] : [$0] }
            + arguments.dropFirst(given.count)
    }
}
