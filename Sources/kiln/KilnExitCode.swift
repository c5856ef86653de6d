import ArgumentParser

/// The exit codes of SPEC §5, in one place.
enum KilnExitCode {
    /// Every output written (or already present).
    static let success = ExitCode(0)
    /// Some inputs failed; the rest were written.
    static let someFailed = ExitCode(1)
    /// A usage error (sysexits EX_USAGE).
    static let usage = ExitCode(64)
    /// A required resource is unavailable (sysexits EX_UNAVAILABLE).
    static let unavailable = ExitCode(69)
    /// Cancelled or expired; `kiln resume` continues (sysexits EX_TEMPFAIL).
    static let resumable = ExitCode(75)

    /// Prints `kiln: message` on standard error (no usage text: the command line was fine) and returns `code` to throw.
    static func failure(_ message: String, _ code: ExitCode) -> ExitCode {
        OutputStream.standardError.write("kiln: \(TextReporter.visible(message))\n")
        return code
    }
}
