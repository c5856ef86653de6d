public import ImageCore

extension PNGDecoder {
    /// Bounds on what a decode may allocate: the image core's, checked against
    /// IHDR before any image-sized allocation.
    public typealias Limits = DecodingLimits
}

extension DecodingLimits {
    /// The per-side bound handed to libpng's own user limits: no side can
    /// exceed the pixel budget (or PNG's 2³¹ − 1).
    var maxDimension: UInt32 { UInt32(min(maxPixels, Int(Int32.max))) }

    /// Throws unless an image of this header fits.
    func check(_ header: PNGHeader) throws(PNGError) {
        switch violation(width: header.width, height: header.height, depth: header.decodedDepth) {
        case nil: return
        case .tooManyPixels:
            throw .tooManyPixels(width: header.width, height: header.height, limit: maxPixels)
        case .tooManyBytes(let bytes):
            throw .tooManyBytes(width: header.width, height: header.height, bytes: bytes, limit: maxDecodedBytes)
        }
    }
}
