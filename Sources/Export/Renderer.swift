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
    /// The bound operations, or why they cannot be bound (then every image fails with it).
    private let pipeline: Result<RenderPipeline, RenderError>
    private let current: Mutex<any RenderBackend>
    private let fallback: @Sendable () -> any RenderBackend
    private let allowFallback: Bool
    private let warn: @Sendable (String) -> Void

    /// A renderer applying `operations`, starting on `backend`. `allowFallback` is false for `--device gpu`.
    /// No image made may exceed `maxPixels` (`RenderPipeline`). An invalid operation or
    /// unreadable watermark makes every `render` throw that `RenderError` (the CLI checks
    /// both before a job starts).
    public init(backend: any RenderBackend, operations: [Operation], maxPixels: Int = RenderPipeline.defaultMaxPixels,
                allowFallback: Bool,
                fallback: @escaping @Sendable () -> any RenderBackend = { CPUBackend() },
                warn: @escaping @Sendable (String) -> Void) {
        pipeline = Result { () throws(RenderError) in try RenderPipeline(operations: operations, maxPixels: maxPixels) }
        current = Mutex(backend)
        self.fallback = fallback
        self.allowFallback = allowFallback
        self.warn = warn
    }

    /// The backend in use now, e.g. for the progress display.
    public var label: String { current.withLock { $0.label } }

    /// Renders one image; see the type's description for failures. A
    /// `RenderError` (e.g. a crop outside this image) fails the image on any backend.
    public func render(_ image: PixelBuffer) throws -> PixelBuffer {
        let pipeline = try pipeline.get()
        let backend = current.withLock { $0 }
        do {
            return try pipeline.render(image, on: backend)
        } catch let error as ComputeError {
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
            return try pipeline.render(image, on: cpu)
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
