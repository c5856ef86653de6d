/// An operation's parameter outside its range, in terms both front ends can
/// name: the recipe key (`operations[2].margin`) and the flag (`--watermark-margin`).
public struct InvalidParameter: Error, Equatable, Sendable, CustomStringConvertible {
    /// The operation's `op` name, e.g. "watermark".
    public let operation: String
    /// The parameter's key in the recipe object, e.g. "margin".
    public let key: String
    /// What is wrong, e.g. "must be 0…2147483647, not 3000000000".
    public let problem: String

    /// A parameter out of range.
    public init(operation: String, key: String, problem: String) {
        self.operation = operation
        self.key = key
        self.problem = problem
    }

    /// "watermark margin must be 0…2147483647, not 3000000000".
    public var description: String { "\(operation) \(key) \(problem)" }
}
