// The library's pthread-backed lock: TSan sees it (it does not see Synchronization.Mutex on Linux).
@testable import ContinuedProcessing

/// A latch a launch handler waits on until the test opens it.
final class Gate: Sendable {
    private let isOpen = Locked(false)

    func open() {
        isOpen.withLock { $0 = true }
    }

    var opened: Bool { isOpen.withLock { $0 } }

    /// Returns when the gate opens, or when the waiting task is cancelled.
    func wait() async {
        while !opened, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(2))
        }
    }
}
