/// The permitted task identifiers: exact ones, and wildcards ending in `.*`.
struct IdentifierPolicy: Sendable {
    private let exact: Set<String>
    /// Each wildcard without its `*`, so `org.kiln.export.*` is stored as `org.kiln.export.`.
    private let prefixes: [String]

    init(_ permitted: [String]) {
        exact = Set(permitted.filter { !$0.hasSuffix(".*") })
        prefixes = permitted.filter { $0.hasSuffix(".*") }.map { String($0.dropLast()) }
    }

    /// Whether `identifier` is permitted: equal to an exact one, or a wildcard's
    /// prefix (dot included) followed by a non-empty suffix.
    func permits(_ identifier: String) -> Bool {
        if exact.contains(identifier) { return true }
        return prefixes.contains { prefix in
            identifier.utf8.count > prefix.utf8.count && identifier.utf8.starts(with: prefix.utf8)
        }
    }
}
