/// Polls `condition` until it holds or `timeout` passes; returns its last value.
/// Used instead of fixed sleeps so tests stay correct on a loaded machine.
func eventually(within timeout: Duration = .seconds(20), _ condition: @Sendable () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return await condition()
}
