internal import ImageCore

/// Reading a PNG stream at the chunk level, and comparing two exports.
public enum PNGChunks {
    /// Whether two PNG streams are the same work (see ``ImageCodec/sameWork(_:_:tolerance:)``):
    /// the same chunks, byte for byte, but for the time their tIME says (two
    /// exports of the same work made at different times; one with a tIME and one
    /// without are not); or, with `tolerance` above 0, the same chunks but for
    /// tIME's time and IDAT, and pixels that differ by at most
    /// `tolerance` per 8-bit sample (`256 × tolerance` per 16-bit one): the same
    /// work rendered on another backend (CPU and Vulkan agree within 1). Another
    /// `--level` over the same pixels passes too: the IDAT depends on the deflate
    /// libraries' builds, the CPU's features and Kiln's version as well as on the
    /// level, so it cannot tell one from the others (the user's cache record can:
    /// `ExportJob.existingOutput`).
    ///
    /// Decision: the pixels are compared row by row from two streaming readers,
    /// so the check holds two rows, never two images; it runs only for an output
    /// found in place with no journal record, which is rare.
    public static func sameWork(_ a: [UInt8], _ b: [UInt8], tolerance: Int) -> Bool {
        guard let left = chunks(a, leavingOut: ["tIME"]), let right = chunks(b, leavingOut: ["tIME"]) else { return a == b }
        if left.elementsEqual(right) { return true }
        guard tolerance > 0 else { return false }
        let isData: (ArraySlice<UInt8>) -> Bool = { $0.dropFirst(4).prefix(4).elementsEqual("IDAT".utf8) }
        guard left.filter({ !isData($0) }).elementsEqual(right.filter { !isData($0) }) else { return false }
        return (try? samplesAgree(a, b, tolerance: tolerance)) == true
    }

    /// The chunks (length, type, data, CRC) of a well-formed stream after its
    /// signature, those of the types in `leftOut` as their type alone (whether
    /// there is one counts, not what it says); nil when the stream does not
    /// parse as chunks.
    private static func chunks(_ png: [UInt8], leavingOut leftOut: Set<String>) -> [ArraySlice<UInt8>]? {
        var chunks: [ArraySlice<UInt8>] = []
        var offset = 8
        while offset < png.count {
            guard offset + 12 <= png.count else { return nil }
            let length = png[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let end = offset + 12 + length
            guard end <= png.count else { return nil }
            let type = String(decoding: png[(offset + 4)..<(offset + 8)], as: UTF8.self)
            // A chunk left out still counts by its type, where it stands: its presence is the work's.
            chunks.append(leftOut.contains(type) ? png[(offset + 4)..<(offset + 8)] : png[offset..<end])
            offset = end
        }
        return png.count >= 8 ? [png[0..<8]] + chunks : nil
    }

    /// Whether two streams with the same header decode to samples within `tolerance` (8-bit levels).
    private static func samplesAgree(_ a: [UInt8], _ b: [UInt8], tolerance: Int) throws -> Bool {
        let left = try PNGRowReader(bytes: a, limits: DecodingLimits())
        let right = try PNGRowReader(bytes: b, limits: DecodingLimits())
        guard left.header == right.header else { return false }
        let rowBytes = left.width * 4 * left.depth.bytesPerSample
        var one = [UInt8](repeating: 0, count: rowBytes), other = one
        for row in 0..<left.height {
            try one.withUnsafeMutableBytes { try left.read(row..<(row + 1), into: $0.baseAddress!) }
            try other.withUnsafeMutableBytes { try right.read(row..<(row + 1), into: $0.baseAddress!) }
            let agree: Bool
            if left.depth == .eight {
                agree = zip(one, other).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
            } else {
                // Host-endian UInt16 samples (PixelBuffer's canonical form).
                agree = one.withUnsafeBytes { l in other.withUnsafeBytes { r in
                    zip(l.bindMemory(to: UInt16.self), r.bindMemory(to: UInt16.self))
                        .allSatisfy { abs(Int($0) - Int($1)) <= 256 * tolerance }
                } }
            }
            if !agree { return false }
        }
        _ = try left.finish()
        _ = try right.finish()
        return true
    }
}
