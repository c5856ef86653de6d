import ImageCore
import CPNG

/// One open CPNG decoder, positioned after the header; closed on deinit.
/// Not copyable, so the C handle has exactly one owner.
struct DecoderSession: ~Copyable {
    private let handle: OpaquePointer
    /// The source's header.
    let header: PNGHeader
    /// A copy of in-memory PNG bytes the session owns (freed after the decoder closes).
    private var owned: UnsafeMutableRawBufferPointer? = nil

    /// Opens a decoder over memory that must stay valid for the session's life;
    /// with `keepMetadata`, ancillary chunks are kept for ``metadata()``.
    /// `libpngOnly` skips the fast path (the tests' oracle).
    init(memory: UnsafeRawBufferPointer, limits: PNGDecoder.Limits, keepMetadata: Bool = false,
         libpngOnly: Bool = false) throws {
        var info = cpng_info()
        var status = cpng_status()
        let flags = (keepMetadata ? CPNG_KEEP_CHUNKS : 0) | (libpngOnly ? CPNG_LIBPNG_ONLY : 0)
        let handle = cpng_decoder_open_memory(memory.baseAddress, memory.count, limits.maxDimension,
                                              flags, &info, &status)
        try self.init(handle: handle, info: info, status: status, limits: limits)
    }

    /// Opens a decoder over a copy of `bytes`, which it owns.
    init(copying bytes: [UInt8], limits: PNGDecoder.Limits, keepMetadata: Bool, libpngOnly: Bool) throws {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 16)
        bytes.withUnsafeBytes { copy.copyMemory(from: $0) }
        do {
            try self.init(memory: UnsafeRawBufferPointer(rebasing: copy[..<bytes.count]), limits: limits,
                          keepMetadata: keepMetadata, libpngOnly: libpngOnly)
        } catch {
            copy.deallocate()
            throw error
        }
        owned = copy
    }

    /// Opens a decoder streaming the file at `path`; with `keepMetadata`,
    /// ancillary chunks are kept for ``metadata()``.
    init(path: String, limits: PNGDecoder.Limits, keepMetadata: Bool = false) throws {
        var info = cpng_info()
        var status = cpng_status()
        let handle = cpng_decoder_open_file(path, limits.maxDimension, keepMetadata ? CPNG_KEEP_CHUNKS : 0,
                                            &info, &status)
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
        owned?.deallocate()
    }

    /// Checks `limits`, then allocates the canonical buffer and decodes into it.
    consuming func decodePixels(limits: PNGDecoder.Limits) throws -> PixelBuffer {
        try readPixels(limits: limits)
    }

    /// As ``decodePixels(limits:)``, also saying whether the fast path decoded them.
    consuming func decodePixelsReportingPath(limits: PNGDecoder.Limits) throws -> (PixelBuffer, fastPath: Bool) {
        let pixels = try readPixels(limits: limits)
        return (pixels, usedFastPath)
    }

    /// Decodes the pixels, then collects the ancillary chunks kept while reading
    /// (the session must have been opened with `keepMetadata`).
    consuming func decodeWithMetadata(limits: PNGDecoder.Limits) throws -> (PixelBuffer, PNGMetadata) {
        let pixels = try readPixels(limits: limits)
        return (pixels, metadata())
    }

    /// Decodes the next `count` canonical rows into `destination` (nil: reads and discards them).
    func readRows(_ count: Int, into destination: UnsafeMutableRawPointer?) throws {
        var status = cpng_status()
        guard cpng_decoder_read_rows(handle, destination, UInt32(count), &status) == CPNG_OK else {
            throw PNGError(status: status)
        }
    }

    /// Reads what is left of the stream to IEND; the image is valid only when this returns.
    func finish() throws {
        var status = cpng_status()
        guard cpng_decoder_finish(handle, &status) == CPNG_OK else { throw PNGError(status: status) }
    }

    /// Whether the fast path decoded the image (known once it is read to the end).
    var usedFastPath: Bool { cpng_decoder_used_fast_path(handle) != 0 }

    /// The ancillary chunks kept while reading: damaged compressed ones, an APNG's
    /// animation and every repeat of a chunk allowed once dropped with a warning.
    func metadata() -> PNGMetadata {
        var raw = [cpng_chunk](repeating: cpng_chunk(), count: cpng_decoder_chunks(handle, nil, 0))
        _ = cpng_decoder_chunks(handle, &raw, raw.count)
        let chunks = raw.map { chunk in
            var name = chunk.name
            let type = withUnsafeBytes(of: &name) { String(decoding: $0.prefix(4), as: UTF8.self) }
            let data = chunk.size > 0 ? [UInt8](UnsafeBufferPointer(start: chunk.data, count: chunk.size)) : []
            return PNGChunk(type: type, data: data, placement: PNGChunk.Placement(rawValue: Int(chunk.location)) ?? .afterImageData)
        }
        let lines = String(cString: cpng_decoder_chunk_warnings(handle)).split(separator: "\n").map(String.init)
        var warnings = lines.map { "\($0); the chunk is left out" }
        var colors: Int32 = 0
        let largest = cpng_decoder_palette_overflow(handle, &colors)
        if largest >= 0 {
            warnings.append("pixels name palette entry \(largest), past the palette's \(colors) color\(colors == 1 ? "" : "s"): such pixels are drawn opaque black")
        }
        var metadata = PNGMetadata(chunks: chunks, sourceColorType: header.colorType, sourceBitDepth: header.bitDepth,
                                   warnings: warnings)
        metadata.dropDamagedChunks()
        metadata.dropAnimation()
        metadata.keepFirstOfEachSingleton()
        return metadata
    }

    private func readPixels(limits: PNGDecoder.Limits) throws -> PixelBuffer {
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
