import CJPEG

/// Why a JPEG could not be decoded or encoded, in libjpeg's words.
///
/// Messages never name the file: callers that know it prefix it.
public enum JPEGError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The data is not a JPEG stream, or is empty.
    case notJPEG(String)
    /// The data ends before the image does.
    case truncated(String)
    /// libjpeg found the data corrupt, or warned about it (Kiln is strict).
    case corrupt(String)
    /// The file cannot be opened or read.
    case io(String)
    /// Memory ran out.
    case outOfMemory(String)
    /// A valid JPEG Kiln does not read, or a request a JPEG cannot meet.
    case unsupported(String)
    /// The declared size has more pixels than the limits allow.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// An output larger than a JPEG holds (65500 pixels a side), whatever the input was.
    case tooLargeToWrite(String)

    /// The error a CJPEG call reported.
    init(_ status: cjpeg_status) {
        let message = withUnsafeBytes(of: status.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        switch status.code {
        // libjpeg's words start as the description does: "not a JPEG file: Not a JPEG file: starts with 0x89 0x51".
        case CJPEG_NOT_JPEG: self = .notJPEG(message.hasPrefix("Not a JPEG file: ") ? String(message.dropFirst(17)) : message)
        case CJPEG_TRUNCATED: self = .truncated(message)
        case CJPEG_IO: self = .io(message)
        case CJPEG_NO_MEMORY: self = .outOfMemory(message)
        case CJPEG_UNSUPPORTED: self = .unsupported(message)
        case CJPEG_TOO_LARGE: self = .tooLargeToWrite(message)
        default: self = .corrupt(message)
        }
    }

    /// A one-line reason, e.g. `"truncated JPEG: Premature end of JPEG file"`.
    public var description: String {
        switch self {
        case .notJPEG(let detail): "not a JPEG file: \(detail)"
        case .truncated(let detail): "truncated JPEG: \(detail)"
        case .corrupt(let detail): "corrupt JPEG: \(detail)"
        case .io(let detail): "I/O error: \(detail)"
        case .outOfMemory(let detail): "out of memory: \(detail)"
        case .unsupported(let detail): "unsupported JPEG: \(detail)"
        case .tooLargeToWrite(let detail): "cannot be written as JPEG: \(detail)"
        case .tooManyPixels(let width, let height, let limit):
            "image too large: \(width)×\(height) = \(width * height) pixels exceeds the limit of \(limit)"
        }
    }
}
