/// Errors of the render layer that are about the job, not the device: bad
/// parameters, an unreadable watermark, a crop outside an image. Never a reason
/// to fall back to the CPU.
public enum RenderError: Error, Equatable, CustomStringConvertible {
    /// An operation's parameter is out of range; the message names it.
    case invalidParameter(String)
    /// The watermark file cannot be read or decoded.
    case unreadableWatermark(path: String, reason: String)
    /// A recipe file cannot be read or is not a valid recipe; the message names the place and the problem.
    case invalidRecipe(path: String, problem: String)
    /// The crop rectangle does not meet the image.
    case cropOutsideImage(crop: String, width: Int, height: Int)

    public var description: String {
        switch self {
        case .invalidParameter(let message): message
        case .unreadableWatermark(let path, let reason): "cannot read the watermark \(path): \(reason)"
        case .invalidRecipe(let path, let problem): "invalid recipe \(path): \(problem)"
        case .cropOutsideImage(let crop, let width, let height): "the crop \(crop) lies outside the \(width)×\(height) image"
        }
    }
}

/// Throws `RenderError.invalidParameter(message)` unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(RenderError) {
    if !condition { throw .invalidParameter(message()) }
}
