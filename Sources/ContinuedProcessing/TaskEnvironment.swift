/// What a started task needs from its scheduler, fixed when it starts.
struct TaskEnvironment: Sendable {
    let hub: EventHub
    let expirationGrace: Duration
    let criticalBudget: Duration
    let log: @Sendable (String) -> Void
    /// Tells the scheduler the task ended so it frees the slot.
    let onEnd: @Sendable () -> Void
}
