import CPNG

/// Reads a NUL-terminated C `char` array imported as a tuple.
func string<Tuple>(fromCArray tuple: Tuple) -> String {
    withUnsafeBytes(of: tuple) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
}

extension PNGError {
    /// The error a failed CPNG call reported; `declared` is the size from IHDR
    /// when known, for the too-large case.
    init(status: cpng_status, declared: cpng_info? = nil, limits: PNGDecoder.Limits? = nil) {
        let message = string(fromCArray: status.message)
        switch status.code {
        case CPNG_NOT_PNG: self = .notPNG(message)
        case CPNG_CRC: self = .crcMismatch(chunk: string(fromCArray: status.chunk))
        case CPNG_BAD_HEADER: self = .invalidHeader(message)
        case CPNG_TRUNCATED: self = .truncated(message)
        case CPNG_TOO_LARGE:
            if let declared, let limits {
                self = .tooManyPixels(width: Int(declared.width), height: Int(declared.height),
                                      limit: limits.maxPixels)
            } else {
                self = .malformed(message)
            }
        case CPNG_IO: self = .io(message)
        case CPNG_NO_MEMORY: self = .outOfMemory(message)
        case CPNG_INVALID_ARGUMENT: self = .invalidArgument(message)
        default: self = .malformed(message)
        }
    }
}
