public import Compute

/// The backend chosen for a job, and why.
public struct BackendChoice: Sendable {
    /// The backend, as the schedule drives it.
    package let passBackend: any PassBackend
    /// Why this backend, for people, e.g. "CPU (no Vulkan driver)"; nil when there is nothing to add.
    public let note: String?

    /// The backend to render with.
    public var backend: any RenderBackend { passBackend }

    /// A choice.
    package init(backend: any PassBackend, note: String?) {
        self.passBackend = backend
        self.note = note
    }
}
