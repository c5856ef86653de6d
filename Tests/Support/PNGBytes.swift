public import ImageCore

/// Helpers to build and take apart PNG byte streams in tests.
public enum PNGBytes {
    /// The 8-byte PNG signature.
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A chunk with a correct CRC.
    public static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return bigEndian(UInt32(data.count)) + typeBytes + data + bigEndian(crc32(typeBytes + data))
    }

    /// IHDR data for the given fields.
    public static func ihdr(width: UInt32, height: UInt32, bitDepth: UInt8 = 8, colorType: UInt8 = 6,
                     interlace: UInt8 = 0) -> [UInt8] {
        chunk("IHDR", bigEndian(width) + bigEndian(height) + [bitDepth, colorType, 0, 0, interlace])
    }

    /// A whole PNG: signature, IHDR, one IDAT (a tiny valid zlib stream), IEND.
    public static func minimalPNG(width: UInt32, height: UInt32, bitDepth: UInt8 = 8, colorType: UInt8 = 6) -> [UInt8] {
        // zlib stream of a single stored block holding one zero byte.
        let zlib: [UInt8] = [0x78, 0x01, 0x01, 0x01, 0x00, 0xFE, 0xFF, 0x00, 0x00, 0x01, 0x00, 0x01]
        return signature + ihdr(width: width, height: height, bitDepth: bitDepth, colorType: colorType)
            + chunk("IDAT", zlib) + chunk("IEND", [])
    }

    /// One chunk's place in a stream.
    public struct Chunk {
        public var type: String
        /// Offset of the length field.
        public var offset: Int
        /// Length of the data.
        public var length: Int
        /// Offset of the data.
        public var dataOffset: Int { offset + 8 }
        /// Offset just past the CRC (the next chunk's offset).
        public var end: Int { offset + 12 + length }
    }

    /// The chunks of a well-formed stream.
    public static func chunks(of png: [UInt8]) -> [Chunk] {
        var result: [Chunk] = []
        var offset = 8
        while offset + 12 <= png.count {
            let length = Int(readBigEndian(png, offset))
            let type = String(decoding: png[(offset + 4)..<(offset + 8)], as: UTF8.self)
            result.append(Chunk(type: type, offset: offset, length: length))
            offset += 12 + length
        }
        return result
    }

    /// The data of every chunk of `type`, in order.
    public static func data(of type: String, in png: [UInt8]) -> [[UInt8]] {
        chunks(of: png).filter { $0.type == type }.map { Array(png[$0.dataOffset..<($0.dataOffset + $0.length)]) }
    }

    /// A whole PNG of 8-bit samples, unfiltered, its image data in stored
    /// deflate blocks: `rows` holds each row's samples (palette indices for
    /// colour type 3); `before` (whole chunks) stands between IHDR and IDAT.
    public static func stored(width: UInt32, colorType: UInt8, rows: [[UInt8]], before: [UInt8] = []) -> [UInt8] {
        let raw: [UInt8] = rows.flatMap { [UInt8(0)] + $0 }
        return signature + ihdr(width: width, height: UInt32(rows.count), colorType: colorType) + before
            + chunk("IDAT", zlibStored(raw)) + chunk("IEND", [])
    }

    /// `image` as a whole RGBA PNG at its depth, unfiltered, in stored deflate
    /// blocks: the plain form of its pixels, whatever smaller one they allow.
    public static func rgba(_ image: PixelBuffer) -> [UInt8] {
        let samples = image.samples16
        let rowSamples = image.width * 4
        var raw: [UInt8] = []
        for y in 0..<image.height {
            raw.append(0)
            for sample in samples[(y * rowSamples)..<((y + 1) * rowSamples)] {
                raw += image.depth == .eight ? [UInt8(sample / 257)] : [UInt8(sample >> 8), UInt8(sample & 0xFF)]
            }
        }
        return signature + ihdr(width: UInt32(image.width), height: UInt32(image.height),
                                bitDepth: UInt8(image.depth.rawValue), colorType: 6)
            + chunk("IDAT", zlibStored(raw)) + chunk("IEND", [])
    }

    /// Inserts `chunk` (a whole chunk) right before the first IDAT.
    public static func insertBeforeImageData(_ chunk: [UInt8], into png: [UInt8]) -> [UInt8] {
        var out = png
        out.insert(contentsOf: chunk, at: chunks(of: png).first { $0.type == "IDAT" }?.offset ?? png.count)
        return out
    }

    /// Inserts `chunk` (a whole chunk, from ``chunk(_:_:)``) right after IHDR.
    public static func insertAfterHeader(_ chunk: [UInt8], into png: [UInt8]) -> [UInt8] {
        var out = png
        out.insert(contentsOf: chunk, at: 8 + 12 + 13)
        return out
    }

    /// A zlib stream holding `data` in stored (uncompressed) deflate blocks:
    /// enough to forge iCCP, zTXt and iTXt chunks without a compressor.
    public static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65535, data.count - offset)
            let final: UInt8 = offset + count == data.count ? 1 : 0
            out.append(final)
            out += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[offset..<(offset + count)]
            offset += count
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + bigEndian(b << 16 | a)
    }

    /// A minimal ICC profile header (128 bytes and an empty tag table) for the
    /// colour space `space` ("RGB " or "GRAY"): what iCCP checks read.
    public static func iccHeader(space: String) -> [UInt8] {
        var profile = [UInt8](repeating: 0, count: 132)
        profile.replaceSubrange(0..<4, with: bigEndian(132))
        profile.replaceSubrange(12..<16, with: Array("mntr".utf8))
        profile.replaceSubrange(16..<20, with: Array(space.utf8))
        profile.replaceSubrange(20..<24, with: Array("XYZ ".utf8))
        profile.replaceSubrange(36..<40, with: Array("acsp".utf8))
        return profile
    }

    /// Recomputes the CRC of the chunk at `chunk.offset` (after editing its data).
    public static func fixCRC(_ png: inout [UInt8], _ chunk: Chunk) {
        let crc = crc32(Array(png[(chunk.offset + 4)..<(chunk.dataOffset + chunk.length)]))
        png.replaceSubrange((chunk.end - 4)..<chunk.end, with: bigEndian(crc))
    }

    public static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    public static func readBigEndian(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// CRC-32 as PNG defines it (ISO 3309), bitwise: tests only hash small chunks.
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
