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
}
