import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// SPEC §4.1's exact smaller forms of a held image: each applies where the
/// pixels allow it and not to a twin with one sample off, and either way the
/// output decodes to exactly the input's pixel values — by Kiln's decoder,
/// by libpng alone and by pypng — on the fast path (level 6) and through
/// libpng (level 9), and passes pngcheck.
@Suite struct ReductionTests {
    @Test(arguments: ReducibleImages.all.map(\.name))
    func reductionAppliesExactlyWhereThePixelsAllowIt(name: String) throws {
        let reduction = try #require(ReducibleImages.all.first { $0.name == name })
        let folder = try TemporaryFolder()
        var written: [String: PixelBuffer] = [:]
        for (image, form, which) in [(reduction.image, reduction.reduced, "image"), (reduction.twin, reduction.kept, "twin")] {
            for level in [6, 9] {
                let encoded = try PNGEncoder.encode(image, options: .init(level: level))
                #expect(ReducibleImages.Form(of: encoded) == form, "\(name), \(which), level \(level)")
                #expect(try PNGDecoder.decode(encoded).sameSamples(as: image), "\(name), \(which), level \(level)")
                #expect(try PNGDecoder.decode(encoded, path: .libpng).0.sameSamples(as: image),
                        "\(name), \(which), level \(level): libpng")
                let file = "\(which)-\(level).png"
                _ = try folder.write(encoded, as: file)
                written[file] = image
            }
        }
        try PngCheck.verify(written.keys.map { folder.url.appendingPathComponent($0).path })
        let reference = try ReferenceDecoder.decode(folder: folder.url.path).get()
        #expect(reference.count == written.count)
        for (file, image) in written {
            let pypng = try #require(reference[file])
            let samples = pypng.depth == 8 ? pypng.samples.map { UInt16($0) * 257 }
                : (0..<pypng.samples.count / 2).map { UInt16(pypng.samples[2 * $0]) << 8 | UInt16(pypng.samples[2 * $0 + 1]) }
            #expect(samples == image.samples16, "\(name), \(file): pypng reads it otherwise")
        }
    }

    /// The same pixels give the same bytes (resume relies on it), whatever
    /// order of calls: the palette's order comes from the pixels alone.
    @Test func theSamePixelsGiveTheSameBytes() throws {
        for reduction in ReducibleImages.all {
            #expect(try PNGEncoder.encode(reduction.image) == PNGEncoder.encode(reduction.image), "\(reduction.name)")
        }
    }

    /// A palette output's palette is Kiln's own: bKGD (an index into the
    /// source's) and hIST are left out, with the reason.
    @Test func paletteOutputsLeaveOutTheSourcesPaletteChunks() throws {
        let (_, pixels, metadata) = try PNGDecoder.decodeWithMetadata(Corpus.bytes("tbbn3p08.png"))
        #expect(metadata.chunks.contains { $0.type == "bKGD" })
        let encoded = try PNGEncoder.encode(pixels, metadata: metadata)
        #expect(ReducibleImages.Form(of: encoded.bytes).palette)
        #expect(!PNGBytes.chunks(of: encoded.bytes).contains { $0.type == "bKGD" })
        #expect(encoded.dropped.contains { $0.type == "bKGD" && $0.reason == "the output's palette is not the source's" })
        #expect(try PNGDecoder.decode(encoded.bytes) == pixels)
    }

    /// PLTE and tRNS stand where libpng writes them — after the chunks
    /// placed before PLTE, before tIME and the chunks placed before the image
    /// data — on the fast path (level 6) as through libpng (level 9).
    @Test func paletteChunksStandWhereLibpngWritesThem() throws {
        let image = ReducibleImages.all.first { $0.reduced.palette && $0.reduced.transparency }!.image
        let metadata = PNGMetadata(chunks: [
            PNGChunk(type: "gAMA", data: PNGBytes.bigEndian(45455), placement: .beforePalette),
            PNGChunk(type: "pHYs", data: PNGBytes.bigEndian(2835) + PNGBytes.bigEndian(2835) + [1], placement: .beforeImageData),
            PNGChunk(type: "tIME", data: [0x07, 0xE8, 1, 2, 3, 4, 5], placement: .beforeImageData),
            PNGChunk(type: "tEXt", data: Array("Comment\0late".utf8), placement: .afterImageData),
        ], sourceColorType: .rgba, sourceBitDepth: 8)
        for level in [6, 9] {
            let bytes = try PNGEncoder.encode(image, options: .init(level: level), metadata: metadata, time: 1_700_000_000).bytes
            var types = PNGBytes.chunks(of: bytes).map(\.type)
            types.removeAll { $0 == "IDAT" }
            #expect(types == ["IHDR", "gAMA", "PLTE", "tRNS", "tIME", "pHYs", "tEXt", "IEND"], "level \(level)")
            #expect(try PNGDecoder.decode(bytes).sameSamples(as: image), "level \(level)")
        }
    }

    /// A palette that would cost a chunk the direct form keeps is not used:
    /// two gray levels not exact at 1 bit are a palette of 2, but with a gray
    /// ICC profile (which cannot describe a palette) they stay gray.
    @Test func aPaletteNeverCostsMetadata() throws {
        var generator = SeededGenerator(seed: 3)
        let image = PixelBuffer(width: 64, height: 64, depth: .eight, samples: (0..<4096).flatMap { _ in
            let v = Bool.random(using: &generator) ? 100 : 0
            return [v, v, v, 255]
        })
        #expect(ReducibleImages.Form(of: try PNGEncoder.encode(image))
                == ReducibleImages.Form(colorType: 3, bitDepth: 1, palette: true))
        let profile = PNGChunk(type: "iCCP", data: Array("gray".utf8) + [0, 0] + PNGBytes.zlibStored(PNGBytes.iccHeader(space: "GRAY")),
                               placement: .beforePalette)
        let metadata = PNGMetadata(chunks: [profile], sourceColorType: .gray, sourceBitDepth: 8)
        let tagged = try PNGEncoder.encode(image, metadata: metadata)
        #expect(tagged.dropped.isEmpty)
        #expect(ReducibleImages.Form(of: tagged.bytes) == ReducibleImages.Form(colorType: 0, bitDepth: 8))
        #expect(PNGBytes.chunks(of: tagged.bytes).contains { $0.type == "iCCP" })
    }
}
