import CJPEG

/// One open CJPEG decoder, its header read; closed on deinit. Not copyable,
/// so the C handle has exactly one owner.
struct JPEGDecoder: ~Copyable {
    private let handle: OpaquePointer
    /// What the header says (the rows' size once started).
    private(set) var info: cjpeg_info
    /// A copy of in-memory bytes the decoder reads (freed after it closes).
    private let owned: UnsafeMutableRawBufferPointer?
    /// What hears the progress of a multi-scan read (``onProgress(_:)``), retained until the decoder closes.
    private var listener: Unmanaged<Listener>?

    /// A closure the C decoder can call through a context pointer.
    private final class Listener {
        let hear: (Double) -> Void
        init(_ hear: @escaping (Double) -> Void) { self.hear = hear }
    }

    /// Opens the file at `path` and reads its header.
    init(path: String) throws(JPEGError) {
        var info = cjpeg_info()
        var status = cjpeg_status()
        guard let handle = cjpeg_decoder_open_file(path, &info, &status) else { throw JPEGError(status) }
        self.handle = handle
        self.info = info
        owned = nil
        listener = nil
    }

    /// Opens a decoder over a copy of `bytes` and reads its header.
    init(copying bytes: [UInt8]) throws(JPEGError) {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 16)
        bytes.withUnsafeBytes { copy.copyMemory(from: $0) }
        var info = cjpeg_info()
        var status = cjpeg_status()
        guard let handle = cjpeg_decoder_open_memory(copy.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count,
                                                     &info, &status) else {
            copy.deallocate()
            throw JPEGError(status)
        }
        self.handle = handle
        self.info = info
        owned = copy
        listener = nil
    }

    deinit {
        cjpeg_decoder_close(handle)
        owned?.deallocate()
        listener?.release()
    }

    /// Fixes the rows' scale at 1/`scale` (1, 2, 4 or 8); ``info`` then gives their size. Nothing is decoded yet:
    /// decompression starts with the first row (a multi-scan file, read whole then, after the memory budget let it in).
    mutating func scale(by scale: Int) throws(JPEGError) {
        var status = cjpeg_status()
        guard cjpeg_decoder_scale(handle, Int32(scale), &info, &status) == CJPEG_OK else { throw JPEGError(status) }
    }

    /// Has `hear` told the fraction (0…1) of the file read while a file of several scans is read whole before its
    /// first row (``cjpeg_info/held_bytes`` above 0), every half percent, on the reading thread. Before the first row.
    mutating func onProgress(_ hear: @escaping (Double) -> Void) {
        listener?.release()
        let retained = Unmanaged.passRetained(Listener(hear))
        listener = retained
        cjpeg_decoder_on_progress(handle, { context, fraction in
            guard let context else { return }
            Unmanaged<Listener>.fromOpaque(context).takeUnretainedValue().hear(fraction)
        }, retained.toOpaque())
    }

    /// Gives back what decompression holds (a multi-scan file's coefficients): no row comes after.
    func abandon() {
        cjpeg_decoder_abandon(handle)
    }

    /// Decodes the next `count` rows (4 bytes a pixel) into `destination`, or drops them when it is nil.
    func readRows(_ count: Int, into destination: UnsafeMutableRawPointer?) throws(JPEGError) {
        var status = cjpeg_status()
        guard cjpeg_decoder_read_rows(handle, destination?.assumingMemoryBound(to: UInt8.self), UInt32(count),
                                      &status) == CJPEG_OK else { throw JPEGError(status) }
    }

    /// Reads the rows not read yet and the rest of the stream to EOI.
    func finish() throws(JPEGError) {
        var status = cjpeg_status()
        guard cjpeg_decoder_finish(handle, &status) == CJPEG_OK else { throw JPEGError(status) }
    }

    /// Whether APP or COM segments past the limits (1000 of one marker, 64 MiB of their data) were left out of ``segments()``.
    var segmentsLeftOut: Bool { cjpeg_decoder_markers_left_out(handle) != 0 }

    /// The APP0, APP1, APP2, APP13 and COM segments of the header, in file order.
    func segments() -> [JPEGSegment] {
        var raw = [cjpeg_marker](repeating: cjpeg_marker(), count: cjpeg_decoder_markers(handle, nil, 0))
        _ = cjpeg_decoder_markers(handle, &raw, raw.count)
        return raw.map { marker in
            JPEGSegment(marker: Int(marker.marker),
                        data: marker.size > 0 ? [UInt8](UnsafeBufferPointer(start: marker.data, count: marker.size)) : [])
        }
    }
}
