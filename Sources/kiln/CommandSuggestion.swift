/// "Did you mean export?" for a misspelled subcommand (`kiln exprot`), as git
/// and cargo do: the nearest command name within two edits.
enum CommandSuggestion {
    /// The message for `arguments` (without the program name) when its first word
    /// is not a command but is close to one; nil when there is nothing to suggest.
    static func message(for arguments: [String], commands: [String]) -> String? {
        guard let word = arguments.first, !word.hasPrefix("-"), !commands.contains(word) else { return nil }
        let nearest = commands.map { ($0, distance(word, $0)) }.min { $0.1 < $1.1 }
        guard let (command, edits) = nearest, edits <= 2 else { return nil }
        return "'\(word)' is not a kiln command; did you mean \(command)?"
    }

    /// Levenshtein distance, with a swap of two neighbours counting as one edit.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var d = (0...a.count).map { i in (0...b.count).map { j in i == 0 ? j : j == 0 ? i : 0 } }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
