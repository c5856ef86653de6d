import Foundation

/// The seed of a randomized test: fresh each run, or `KILN_TEST_SEED` (decimal
/// or `0x` hex) to replay a failure. Its description, which every failure
/// message of a randomized test includes, says how to replay it.
public struct TestSeed: Sendable, CustomStringConvertible {
    /// The environment variable that fixes the seed.
    public static let variable = "KILN_TEST_SEED"

    /// The seed's value.
    public let value: UInt64

    /// `KILN_TEST_SEED` when set (a malformed value stops the test run: a replay
    /// must not quietly run with another seed), otherwise a random seed.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let text = environment[Self.variable] else {
            value = .random(in: .min ... .max)
            return
        }
        let parsed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        guard let parsed else { fatalError("\(Self.variable)=\(text) is not a decimal or 0x-hex UInt64") }
        value = parsed
    }

    /// A generator that starts from this seed.
    public var generator: SeededGenerator { SeededGenerator(seed: value) }

    /// "seed 123 (replay with KILN_TEST_SEED=123)".
    public var description: String { "seed \(value) (replay with \(Self.variable)=\(value))" }
}
