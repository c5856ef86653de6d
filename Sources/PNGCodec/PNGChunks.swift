/// Reading a PNG stream at the chunk level, without decoding it.
public enum PNGChunks {
    /// Whether two PNG streams hold the same chunks, byte for byte, but for
    /// their tIME: two exports of the same work made at different times.
    public static func sameExceptTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard let left = withoutTime(a), let right = withoutTime(b) else { return a == b }
        return left.elementsEqual(right)
    }

    /// The chunks (length, type, data, CRC) of a well-formed stream after its
    /// signature, tIME left out; nil when the stream does not parse as chunks.
    private static func withoutTime(_ png: [UInt8]) -> [ArraySlice<UInt8>]? {
        var chunks: [ArraySlice<UInt8>] = []
        var offset = 8
        while offset < png.count {
            guard offset + 12 <= png.count else { return nil }
            let length = png[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let end = offset + 12 + length
            guard end <= png.count else { return nil }
            if !png[(offset + 4)..<(offset + 8)].elementsEqual("tIME".utf8) { chunks.append(png[offset..<end]) }
            offset = end
        }
        return png.count >= 8 ? [png[0..<8]] + chunks : nil
    }
}
