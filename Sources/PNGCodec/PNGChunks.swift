internal import ImageCore

/// Reading a PNG stream at the chunk level, and comparing two exports.
public enum PNGChunks {
    /// Whether two PNG streams are the same work (see ``ImageCodec/sameWork(_:_:tolerance:)``):
    /// the same chunks, byte for byte, but for their tIME (two exports of the same
    /// work made at different times); or, with `tolerance` above 0, the same
    /// chunks but for tIME and IDAT and pixels that differ, by at most
    /// `tolerance` per 8-bit sample (`256 × tolerance` per 16-bit one): the same
    /// work rendered on another backend (CPU and Vulkan agree within 1). Pixels
    /// that are all the same in another IDAT are another compression (`--level`):
    /// the encoder makes the same IDAT from the same pixels, whatever the machine
    /// (segments of 1 MiB, not one a core). Before (found 2026-11-27, eighth
    /// session), `--level 1` into a folder a clean `--level 9` run had made said
    /// "skipped", exit 0, and kept the level-9 files. Another level over pixels
    /// made on the other backend still passes: the IDAT cannot tell it apart.
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
        guard let largest = try? largestDifference(a, b) else { return false }
        return largest > 0 && largest <= tolerance
    }

    /// The chunks (length, type, data, CRC) of a well-formed stream after its
    /// signature, those of the types in `leftOut` left out; nil when the stream
    /// does not parse as chunks.
    private static func chunks(_ png: [UInt8], leavingOut leftOut: Set<String>) -> [ArraySlice<UInt8>]? {
        var chunks: [ArraySlice<UInt8>] = []
        var offset = 8
        while offset < png.count {
            guard offset + 12 <= png.count else { return nil }
            let length = png[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let end = offset + 12 + length
            guard end <= png.count else { return nil }
            let type = String(decoding: png[(offset + 4)..<(offset + 8)], as: UTF8.self)
            if !leftOut.contains(type) { chunks.append(png[offset..<end]) }
            offset = end
        }
        return png.count >= 8 ? [png[0..<8]] + chunks : nil
    }

    /// The largest difference between the samples two streams decode to, in 8-bit levels
    /// (rounded up from 16-bit ones); nil when their headers differ.
    private static func largestDifference(_ a: [UInt8], _ b: [UInt8]) throws -> Int? {
        let left = try PNGRowReader(bytes: a, limits: DecodingLimits())
        let right = try PNGRowReader(bytes: b, limits: DecodingLimits())
        guard left.header == right.header else { return nil }
        let rowBytes = left.width * 4 * left.depth.bytesPerSample
        var one = [UInt8](repeating: 0, count: rowBytes), other = one
        var largest = 0
        for row in 0..<left.height {
            try one.withUnsafeMutableBytes { try left.read(row..<(row + 1), into: $0.baseAddress!) }
            try other.withUnsafeMutableBytes { try right.read(row..<(row + 1), into: $0.baseAddress!) }
            if left.depth == .eight {
                for (l, r) in zip(one, other) { largest = max(largest, abs(Int(l) - Int(r))) }
            } else {
                // Host-endian UInt16 samples (PixelBuffer's canonical form).
                one.withUnsafeBytes { l in other.withUnsafeBytes { r in
                    for (l, r) in zip(l.bindMemory(to: UInt16.self), r.bindMemory(to: UInt16.self)) {
                        largest = max(largest, (abs(Int(l) - Int(r)) + 255) / 256)
                    }
                } }
            }
        }
        _ = try left.finish()
        _ = try right.finish()
        return largest
    }
}
