/// How a device's strips hold an image's rows (``PassBackend/deviceStrips(depth:sourceHeld:)``):
/// what the schedule's memory estimate needs to count the host memory they take.
package struct DeviceStripLayout: Sendable, Equatable {
    /// Float bytes a chunk aims at, in place of the schedule's standard chunking.
    package var chunkBytes: Int
    /// Whether the windows of rows are host memory (a device sharing the host's memory,
    /// as lavapipe and integrated GPUs do); elsewhere they are the device's own.
    package var windowsInHostMemory: Bool
    /// Host bytes the strips' staging holds at most.
    package var stagingBytes: Int

    /// A layout of chunks of `chunkBytes`, windows in host memory or not, and `stagingBytes` of staging.
    package init(chunkBytes: Int, windowsInHostMemory: Bool, stagingBytes: Int) {
        self.chunkBytes = chunkBytes
        self.windowsInHostMemory = windowsInHostMemory
        self.stagingBytes = stagingBytes
    }
}
