import PNGCodec
import Testing
import ImageCore
import KilnTestSupport

/// SPEC §7: the 14 corrupt PngSuite files are rejected, each with a specific reason.
@Suite struct CorruptFileTests {
    /// What each file's README entry says is wrong with it, as our error.
    private static let expected: [String: @Sendable (PNGError) -> Bool] = [
        "xs1n0g01.png": { if case .notPNG(let m) = $0 { m.contains("high bit") } else { false } },
        "xs2n0g01.png": { if case .notPNG(let m) = $0 { m.contains("byte 1") } else { false } },
        "xs4n0g01.png": { if case .notPNG(let m) = $0 { m.contains("byte 3") } else { false } },
        "xs7n0g01.png": { if case .notPNG(let m) = $0 { m.contains("byte 6") } else { false } },
        "xcrn0g04.png": { if case .notPNG(let m) = $0 { m.contains("line endings") } else { false } },
        "xlfn0g04.png": { if case .notPNG(let m) = $0 { m.contains("line endings") } else { false } },
        "xc1n0g08.png": { if case .invalidHeader(let m) = $0 { m.contains("color type 1") } else { false } },
        "xc9n2c08.png": { if case .invalidHeader(let m) = $0 { m.contains("color type 9") } else { false } },
        "xd0n2c08.png": { if case .invalidHeader(let m) = $0 { m.contains("bit depth 0") } else { false } },
        "xd3n2c08.png": { if case .invalidHeader(let m) = $0 { m.contains("bit depth 3") } else { false } },
        "xd9n2c08.png": { if case .invalidHeader(let m) = $0 { m.contains("bit depth 99") } else { false } },
        "xdtn0g01.png": { if case .malformed(let m) = $0 { m.contains("no image data") } else { false } },
        "xhdn0g08.png": { $0 == .crcMismatch(chunk: "IHDR") },
        "xcsn0g01.png": { $0 == .crcMismatch(chunk: "IDAT") },
    ]

    @Test func everyCorruptFileIsRejectedWithItsReason() throws {
        let files = try Corpus.corruptFiles()
        #expect(files.count == 14)
        #expect(Set(files) == Set(Self.expected.keys))
        for name in files {
            do {
                _ = try PNGDecoder.decode(contentsOf: Corpus.path(name))
                Issue.record("\(name) decoded but is corrupt")
            } catch let error as PNGError {
                print("\(name): \(error)")
                #expect(!error.description.isEmpty)
                #expect(Self.expected[name]?(error) == true, "\(name): unexpected reason: \(error)")
                // The same reason whether the bytes come from a file or from memory.
                #expect(throws: error) { try PNGDecoder.decode(try Corpus.bytes(name)) }
            }
        }
    }

    /// A chunk length past 2^31 - 1 was refused in libpng's words, "PNG unsigned integer out of range", naming no
    /// chunk: now the chunk and its length are named, on both paths (the fast one leaves it to libpng).
    @Test(arguments: [("tEXt", UInt32.max), ("IDAT", UInt32(0x8000_0000))])
    func aChunkLengthPast31BitsIsNamed(type: String, length: UInt32) throws {
        let rows: [[UInt8]] = (0..<4).map { _ in [UInt8](repeating: 7, count: 12) }
        var bytes = PNGBytes.stored(width: 4, colorType: 2, rows: rows, before: PNGBytes.chunk("tEXt", Array("a\0b".utf8)))
        let at = PNGBytes.chunks(of: bytes).first { $0.type == type }!.offset
        bytes.replaceSubrange(at..<(at + 4), with: PNGBytes.bigEndian(length))
        for path in [PNGDecoder.Path.automatic, .libpng] {
            #expect(throws: PNGError.malformed("the \(type) chunk's length, \(length) bytes, is past the 2^31 - 1 a chunk may have")) {
                _ = try PNGDecoder.decode(bytes, path: path)
            }
        }
    }
}
