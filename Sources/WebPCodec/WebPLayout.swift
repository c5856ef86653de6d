/// A WebP container's chunks without its coded image: what an export chose
/// (metadata, lossy or lossless), apart from what its pixels coded to.
enum WebPLayout {
    /// The chunks of `webp` after its RIFF header: each whole (four-character
    /// code, size, payload), but `VP8 ` and `VP8L` as their code alone, and
    /// neither `VP8X` nor `ALPH`: libwebp writes them, and picks ALPH's
    /// filter and compression, from the pixels (a plane of alpha all 255 has
    /// neither; the other backend's alpha one level off may). Nil when the
    /// file does not parse as chunks.
    static func chunks(_ webp: [UInt8]) -> [ArraySlice<UInt8>]? {
        guard riffSize(webp) != nil else { return nil }
        var chunks: [ArraySlice<UInt8>] = []
        var offset = 12
        while offset < webp.count {
            guard offset + 8 <= webp.count else { return nil }
            let size = littleEndian(webp[(offset + 4)..<(offset + 8)])
            let end = offset + 8 + size
            guard end <= webp.count else { return nil }
            let code = webp[offset..<(offset + 4)]
            if code.elementsEqual("VP8 ".utf8) || code.elementsEqual("VP8L".utf8) {
                chunks.append(code)
            } else if !code.elementsEqual("VP8X".utf8) && !code.elementsEqual("ALPH".utf8) {
                chunks.append(webp[offset..<end])
            }
            // Chunks are padded to an even size.
            offset = end + (size & 1)
        }
        return chunks
    }

    /// The RIFF size the 12-byte header at the start of `bytes` states ("RIFF", the size, "WEBP"), or nil where
    /// they are no RIFF WebP header.
    static func riffSize(_ bytes: some Collection<UInt8>) -> Int? {
        let start = Array(bytes.prefix(12))
        guard start.count == 12, start[0..<4].elementsEqual("RIFF".utf8), start[8..<12].elementsEqual("WEBP".utf8) else {
            return nil
        }
        return littleEndian(start[4..<8])
    }

    /// Four bytes as a little-endian number (RIFF's sizes).
    private static func littleEndian(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}
