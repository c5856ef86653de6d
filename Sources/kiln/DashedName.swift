import Foundation

/// A file or folder whose name starts with a dash, named before `--`: ArgumentParser reads `-dash.png` as the short
/// flags `-d -a -s -h …`, and that `-h` printed the help and exited 0, so a script saw success and nothing was done
/// (found 2026-11-28). Such an argument that names something on disk is refused first, saying how to name it, as
/// `rm` does ("Try 'rm ./-dash.png'").
enum DashedName {
    /// The message for the first argument before `--` that starts with one dash, is longer than a short flag, is
    /// not a number (an option's value: `--brightness -0.5`), and names an existing path; nil when there is none.
    static func message(for arguments: [String]) -> String? {
        let command = arguments.first.map { $0.hasPrefix("-") ? "" : $0 + " " } ?? ""
        for argument in arguments.prefix(while: { $0 != "--" })
        where argument.count > 2 && argument.hasPrefix("-") && !argument.hasPrefix("--") && Double(argument) == nil {
            var info = stat()
            if lstat(argument, &info) == 0 {
                return "\(argument) would be read as options, not as the file of that name: put -- before the names "
                    + "(kiln \(command)… -- \(argument)), or write ./\(argument)"
            }
        }
        return nil
    }
}
