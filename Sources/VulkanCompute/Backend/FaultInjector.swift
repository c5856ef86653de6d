/// Test hook: makes one queue submission fail as `VK_ERROR_DEVICE_LOST`
/// would, to exercise the export layer's fallback (`KILN_FAULT_DEVICE_LOST_AT=N`).
struct FaultInjector: Sendable {
    /// The 1-based submission that fails; nil: none.
    let deviceLostAtSubmission: Int?

    /// True when submission number `submission` (1-based) must report device loss.
    func failsSubmission(_ submission: Int) -> Bool {
        submission == deviceLostAtSubmission
    }
}
