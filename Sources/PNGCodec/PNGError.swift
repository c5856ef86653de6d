/// Why a PNG could not be decoded or encoded.
///
/// Messages never name the file: callers that know it prefix it
/// (`"\(path): \(error)"`).
public enum PNGError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The data does not start with the PNG signature (or is empty).
    case notPNG(String)
    /// A critical chunk's CRC does not match its contents.
    case crcMismatch(chunk: String)
    /// The IHDR chunk is missing or has an invalid field; the detail names it.
    case invalidHeader(String)
    /// The data ends early; the detail says where.
    case truncated(String)
    /// The declared size has more pixels than `PNGDecoder.Limits.maxPixels` allows.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// The decoded image would need more bytes than `PNGDecoder.Limits.maxDecodedBytes` allows.
    case tooManyBytes(width: Int, height: Int, bytes: Int, limit: Int)
    /// Opening or reading the input failed (the system's reason).
    case io(String)
    /// A buffer could not be allocated.
    case outOfMemory(String)
    /// Any other corruption, in libpng's words (e.g. `"IDAT: invalid distance too far back"`).
    case malformed(String)
    /// The caller asked for something impossible (e.g. compression level 12).
    case invalidArgument(String)

    /// A one-line reason, e.g. `"CRC mismatch in the IDAT chunk"`.
    public var description: String {
        switch self {
        case .notPNG(let detail): detail
        case .crcMismatch(let chunk): "corrupt PNG: CRC mismatch in the \(chunk) chunk"
        case .invalidHeader(let detail): "invalid PNG header (IHDR): \(detail)"
        case .truncated(let detail): "truncated PNG: \(detail)"
        case .tooManyPixels(let width, let height, let limit):
            "image too large: \(width)×\(height) = \(width * height) pixels exceeds the limit of \(limit)"
        case .tooManyBytes(let width, let height, let bytes, let limit):
            "image too large: \(width)×\(height) needs \(bytes) bytes decoded, over the limit of \(limit)"
        case .io(let detail): "I/O error: \(detail)"
        case .outOfMemory(let detail): "out of memory: \(detail)"
        case .malformed(let detail): "corrupt PNG: \(detail)"
        case .invalidArgument(let detail): "invalid argument: \(detail)"
        }
    }
}
