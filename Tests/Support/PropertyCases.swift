import Foundation

/// How many cases a property test runs: its CI default, or `KILN_PROPERTY_CASES`
/// (Scripts/nightly-properties sets it high). The count is printed with the seed,
/// so a run's log says how much it checked and how to replay it.
public enum PropertyCases {
    /// The environment variable that overrides every property test's case count.
    public static let variable = "KILN_PROPERTY_CASES"

    /// `KILN_PROPERTY_CASES` when set, otherwise `ciDefault` (a malformed value stops
    /// the run rather than quietly checking the default number).
    public static func count(ciDefault: Int, environment: [String: String] = ProcessInfo.processInfo.environment) -> Int {
        guard let text = environment[variable] else { return ciDefault }
        guard let count = Int(text), count >= 0 else { fatalError("\(variable)=\(text) is not a count") }
        return count
    }
}
