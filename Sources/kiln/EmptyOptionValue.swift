/// `--title=`, an empty value written with `=` (a script's `--title="$T"` with `T` unset): ArgumentParser reads it
/// as no value at all and takes the next argument instead (`--title= --rotate=90` made the title "--rotate=90" and
/// turned nothing, exit 0; `--keep= in/a.png` took the input for the list). Written as two arguments, `--title ""`,
/// an empty value is a value, so the one form is made the other before anything reads the command line (found
/// 2026-11-28).
enum EmptyOptionValue {
    /// `arguments` with each `--name=` before `--` as `--name` and an empty argument.
    static func split(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var options = true
        for argument in arguments {
            if argument == "--" { options = false }
            if options, argument.count > 3, argument.hasPrefix("--"), argument.hasSuffix("="),
               argument.dropFirst(2).dropLast().allSatisfy({ $0 != "=" }) {
                result += [String(argument.dropLast()), ""]
            } else {
                result.append(argument)
            }
        }
        return result
    }
}
