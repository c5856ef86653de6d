import CPNG

/// One open CPNG decoder, positioned after the header; closed on deinit.
/// Not copyable, so the C handle has exactly one owner.
struct DecoderSession: ~Copyable {
    private let handle: OpaquePointer
    /// The source's header.
    let header: PNGHeader

    /// Opens a decoder over memory that must stay valid for the session's life.
    init(memory: UnsafeRawBufferPointer, limits: PNGDecoder.Limits) throws {
        var info = cpng_info()
        var status = cpng_status()
        let handle = cpng_decoder_open_memory(memory.baseAddress, memory.count, limits.maxDimension, &info, &status)
        try self.init(handle: handle, info: info, status: status, limits: limits)
    }

    /// Opens a decoder streaming the file at `path`.
    init(path: String, limits: PNGDecoder.Limits) throws {
        var info = cpng_info()
        var status = cpng_status()
        let handle = cpng_decoder_open_file(path, limits.maxDimension, &info, &status)
        try self.init(handle: handle, info: info, status: status, limits: limits)
    }

    private init(handle: OpaquePointer?, info: cpng_info, status: cpng_status, limits: PNGDecoder.Limits) throws {
        guard let handle else {
            throw PNGError(status: status, declared: info, limits: limits)
        }
        self.handle = handle
        self.header = PNGHeader(
            width: Int(info.width), height: Int(info.height), bitDepth: Int(info.bit_depth),
            colorType: PNGColorType(rawValue: Int(info.color_type)) ?? .rgba,
            interlaced: info.interlaced != 0, hasTransparencyChunk: info.has_trns != 0)
    }

    deinit {
        cpng_decoder_close(handle)
    }

    /// Checks `limits`, then allocates the canonical buffer and decodes into it.
    consuming func decodePixels(limits: PNGDecoder.Limits) throws -> PixelBuffer {
        try limits.check(header)
        let depth = header.decodedDepth
        let count = header.width * header.height * 4 * depth.bytesPerSample
        var status = cpng_status()
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let code = cpng_decoder_read_image(handle, buffer.baseAddress, count, &status)
            // Every byte is written on success; on failure the array is discarded.
            initialized = code == CPNG_OK ? count : 0
        }
        guard status.code == CPNG_OK else { throw PNGError(status: status) }
        return PixelBuffer(width: header.width, height: header.height, depth: depth, bytes: bytes)
    }
}
