import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// The metadata model holds at most one of each chunk the PNG specification
/// allows once (issue 24): both decoders keep the first, and the encoder
/// writes one, in its place, whatever metadata it is handed.
@Suite struct SingletonChunkModelTests {
    /// `png` with a second gAMA (another value than PngSuite's 1.0) right after its first.
    private func repeatingGamma(_ png: [UInt8]) throws -> [UInt8] {
        let gamma = try #require(PNGBytes.chunks(of: png).first { $0.type == "gAMA" })
        var out = png
        out.insert(contentsOf: PNGBytes.chunk("gAMA", PNGBytes.bigEndian(55_555)), at: gamma.end)
        return out
    }

    /// basn2c08 is read by the fast path, basi2c08 (interlaced) by libpng.
    @Test(arguments: [("basn2c08.png", true), ("basi2c08.png", false)])
    func bothDecodersKeepTheFirst(name: String, fastPath: Bool) throws {
        let source = try Corpus.bytes(name)
        let png = try repeatingGamma(source)
        #expect(try PNGDecoder.decode(png, path: .automatic).fastPath == fastPath)
        let (_, pixels, metadata) = try PNGDecoder.decodeWithMetadata(png)
        #expect(metadata.chunks.filter { $0.type == "gAMA" }.map(\.data) == PNGBytes.data(of: "gAMA", in: source))
        #expect(metadata.warnings.count == 1 && metadata.warnings[0].hasPrefix("gAMA: more than one"), "\(metadata.warnings)")
        let output = try PNGEncoder.encode(pixels, metadata: metadata).bytes
        #expect(PNGBytes.data(of: "gAMA", in: output) == PNGBytes.data(of: "gAMA", in: source))
    }

    @Test func theEncoderWritesOneOfEachInItsPlace() throws {
        let image = PixelBuffer(width: 2, height: 1, depth: .eight, bytes: [10, 20, 30, 255, 40, 50, 60, 255])
        let exif: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0]
        // Metadata not made by the decoder: two gAMA, one of them late, and a late eXIf.
        let metadata = PNGMetadata(chunks: [
            PNGChunk(type: "gAMA", data: PNGBytes.bigEndian(45455), placement: .beforePalette),
            PNGChunk(type: "gAMA", data: PNGBytes.bigEndian(100_000), placement: .beforePalette),
            PNGChunk(type: "gAMA", data: PNGBytes.bigEndian(50_000), placement: .afterImageData),
            PNGChunk(type: "eXIf", data: exif, placement: .afterImageData),
        ], sourceColorType: .rgb, sourceBitDepth: 8)
        let output = try PNGEncoder.encode(image, metadata: metadata).bytes
        #expect(PNGBytes.chunks(of: output).map(\.type) == ["IHDR", "gAMA", "eXIf", "IDAT", "IEND"])
        #expect(PNGBytes.data(of: "gAMA", in: output) == [PNGBytes.bigEndian(45455)])
    }
}
