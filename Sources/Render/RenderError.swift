/// Errors of the render layer that are about the job, not the device: bad
/// parameters, an unreadable watermark, a crop outside an image. Never a reason
/// to fall back to the CPU.
public enum RenderError: Error, Equatable, CustomStringConvertible {
    /// An operation's parameter is out of range.
    case invalidParameter(InvalidParameter)
    /// The watermark file cannot be read or decoded.
    case unreadableWatermark(path: String, reason: String)
    /// A recipe file cannot be read or is not a valid recipe; the message names the place and the problem.
    case invalidRecipe(path: String, problem: String)
    /// The crop rectangle does not meet the image.
    case cropOutsideImage(crop: String, width: Int, height: Int)
    /// An operation would make an image (the output or an intermediate) of more pixels than the job allows.
    case imageTooLarge(operation: String, width: Int, height: Int, limit: Int)

    public var description: String {
        switch self {
        case .invalidParameter(let parameter): parameter.description
        case .unreadableWatermark(let path, let reason): "cannot read the watermark \(path): \(reason)"
        case .invalidRecipe(let path, let problem): "invalid recipe \(path): \(problem)"
        case .cropOutsideImage(let crop, let width, let height): "the crop \(crop) lies outside the \(width)×\(height) image"
        case .imageTooLarge(let operation, let width, let height, let limit):
            "\(operation) would make a \(width)×\(height) image, more than the limit of \(limit) pixels (--max-pixels)"
        }
    }
}

/// Throws `RenderError.invalidParameter` for `key` of `operation` unless `condition` holds.
func require(_ condition: Bool, _ operation: String, _ key: String, _ problem: @autoclosure () -> String) throws(RenderError) {
    if !condition { throw .invalidParameter(InvalidParameter(operation: operation, key: key, problem: problem())) }
}
