/// The backend chosen for a job, and why.
public struct BackendChoice: Sendable {
    /// The backend to render with.
    public let backend: any RenderBackend
    /// Why this backend, for people, e.g. "CPU (no Vulkan driver)"; nil when there is nothing to add.
    public let note: String?

    /// A choice.
    public init(backend: any RenderBackend, note: String?) {
        self.backend = backend
        self.note = note
    }
}
