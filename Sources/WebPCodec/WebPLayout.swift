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
        guard webp.count >= 12, webp[0..<4].elementsEqual("RIFF".utf8), webp[8..<12].elementsEqual("WEBP".utf8) else {
            return nil
        }
        var chunks: [ArraySlice<UInt8>] = []
        var offset = 12
        while offset < webp.count {
            guard offset + 8 <= webp.count else { return nil }
            let size = webp[(offset + 4)..<(offset + 8)].reversed().reduce(0) { $0 << 8 | Int($1) }
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
}
