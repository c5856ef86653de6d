import Foundation
import Locking

/// The kernel's word on memory being short: pressure stall information
/// (`/proc/pressure/memory`, Linux 4.20+). While `some avg10` — the share of
/// the last 10 seconds in which some task waited for memory — is above
/// ``threshold``, the ``MemoryBudget`` admits one image at a time. Where the file
/// does not exist there is no `MemoryPressure` and nothing changes.
public final class MemoryPressure: Sendable {
    /// The `some avg10` percentage above which memory counts as short.
    public static let threshold = 10.0
    /// How long one reading of the file is trusted.
    static let interval = Duration.seconds(1)

    private struct State {
        var readAt: ContinuousClock.Instant?
        var high = false
        var warned = false
    }

    private let path: String
    private let warn: @Sendable (String) -> Void
    private let state = Locked(State())

    /// Reads `path` (the kernel's file; a test names another); nil when it cannot be read.
    /// `warn` is told once, the first time memory is found short.
    public init?(path: String = "/proc/pressure/memory", warn: @escaping @Sendable (String) -> Void) {
        guard Self.someAverage10(path) != nil else { return nil }
        self.path = path
        self.warn = warn
    }

    /// Whether memory is short now (the file read at most once a second).
    public var isHigh: Bool {
        let now = ContinuousClock.now
        let (high, warnNow) = state.withLock { s -> (Bool, String?) in
            guard s.readAt.map({ now - $0 >= Self.interval }) ?? true else { return (s.high, nil) }
            s.readAt = now
            let average = Self.someAverage10(path) ?? 0
            s.high = average > Self.threshold
            guard s.high, !s.warned else { return (s.high, nil) }
            s.warned = true
            return (true, String(format: "memory is short (the kernel's pressure: some avg10=%.2f %%, above %g %%): one image at a time while it lasts",
                                 average, Self.threshold))
        }
        if let warnNow { warn(warnNow) }
        return high
    }

    /// `some avg10=` of a PSI file, in percent; nil when the file or the field is missing.
    static func someAverage10(_ path: String) -> Double? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("some ") }),
              let field = line.split(separator: " ").first(where: { $0.hasPrefix("avg10=") }) else { return nil }
        return Double(field.dropFirst(6))
    }
}
