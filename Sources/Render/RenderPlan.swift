/// What a job renders: the operations in order, and the output settings a recipe may carry.
/// Codable (the job's journal records it): `{"operations":[…],"level":6}`.
public struct RenderPlan: Sendable, Equatable, Codable {
    /// The operations, applied in this order.
    public var operations: [Operation]
    /// PNG compression level, 0–9.
    public var level: Int

    /// A plan.
    public init(operations: [Operation] = [], level: Int = 6) {
        self.operations = operations
        self.level = level
    }

    private enum CodingKeys: String, CodingKey {
        case operations, level
    }

    /// Decodes a plan (e.g. from a job's journal), checking every value as a recipe's are checked.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        operations = try container.decode([Operation].self, forKey: .operations)
        level = try container.decode(Int.self, forKey: .level)
        guard ParameterRanges.level.bounds.contains(level) else {
            throw DecodingError.dataCorruptedError(forKey: .level, in: container,
                                                   debugDescription: "must be \(ParameterRanges.level.text), not \(level)")
        }
    }
}
