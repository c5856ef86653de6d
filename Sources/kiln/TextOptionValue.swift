/// `--title` and `--subtitle` take the next argument whatever it is (`--title -x` is the text "-x"), so a
/// forgotten value took the next option as the text: `--title --overwrite` made the title "--overwrite" and
/// dropped the option without a word (found 2026-11-28). A long option there is refused first, saying how to
/// give such a text.
enum TextOptionValue {
    /// The options whose value is any text.
    static let options = ["--title", "--subtitle"]

    /// Kiln's own short options (`--title -o out` took `-o` as the title and `out` as an input).
    static let shortOptions = ["-o", "-0", "-h"]

    /// The message for the first of ``options`` before `--` followed by an argument that looks like a long option
    /// (`--` and a letter) or is one of kiln's ``shortOptions``; nil when there is none.
    static func message(for arguments: [String]) -> String? {
        let given = Array(arguments.prefix(while: { $0 != "--" }))
        for (option, value) in zip(given, given.dropFirst()) where options.contains(option) {
            guard shortOptions.contains(value) || value.hasPrefix("--") && value.dropFirst(2).first?.isLetter == true
            else { continue }
            return "\(option) has no text: \(value) is an option; give the text (write \(option)=\(value) "
                + "if that is the text)"
        }
        return nil
    }
}
