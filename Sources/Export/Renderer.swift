import Compute
import PNGCodec
import Render
import Synchronization

/// Runs the render stage of every image on the backend the job chose, and owns
/// the mid-job fallback of SPEC §3: when the Vulkan path fails (device lost,
/// out of device memory, pipeline error) the image and all remaining work move
/// to the CPU, with one warning — unless a GPU was required, in which case the
/// job must stop (resumably) instead.
public final class Renderer: Sendable {
    private let current: Mutex<any RenderBackend>
    private let fallback: @Sendable () -> any RenderBackend
    private let allowFallback: Bool
    private let warn: @Sendable (String) -> Void

    /// A renderer applying `operations`, starting on `backend`. `allowFallback` is false for `--device gpu`.
    public init(backend: any RenderBackend, operations: [Operation], allowFallback: Bool,
                fallback: @escaping @Sendable () -> any RenderBackend = { CPUBackend() },
                warn: @escaping @Sendable (String) -> Void) {
        current = Mutex(backend)
        self.fallback = fallback
        self.allowFallback = allowFallback
        self.warn = warn
    }

    /// The backend in use now, e.g. for the progress display.
    public var label: String { current.withLock { $0.label } }

    /// Renders one image; see the type's description for failures.
    public func render(_ image: PixelBuffer) throws -> PixelBuffer {
        let backend = current.withLock { $0 }
        do {
            return try backend.render(image)
        } catch {
            guard backend.kind == .vulkan else { throw error }
            guard allowFallback else { throw RenderStop(reason: "\(backend.label): \(error)") }
            let (cpu, switched) = current.withLock { active -> (any RenderBackend, Bool) in
                if active.kind == .vulkan {
                    active = fallback()
                    return (active, true)
                }
                return (active, false)
            }
            if switched {
                warn("the Vulkan path failed (\(error)); continuing on the CPU")
            }
            return try cpu.render(image)
        }
    }
}

/// Thrown when the required GPU fails: the job stops, resumable, rather than
/// quietly continuing somewhere the user did not ask for.
public struct RenderStop: Error, CustomStringConvertible {
    /// What failed.
    public let reason: String
    public var description: String { "the required GPU failed: \(reason)" }
}
