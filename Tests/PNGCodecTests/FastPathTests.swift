import Foundation
import KilnTestSupport
@testable import PNGCodec
import Testing

/// The fast decoding path (ISA-L inflate, a chunk reader of its own) against
/// libpng, the oracle: the same pixels wherever it decodes, and every file it
/// does not take, or any anomaly, left to libpng.
@Suite struct FastPathTests {
    @Test func pngSuiteFastPathEqualsLibpng() throws {
        var fast = 0
        for name in try Fixtures.validPngSuiteFiles() {
            let bytes = try Corpus.bytes(name)
            let (automatic, usedFast) = try PNGDecoder.decode(bytes, path: .automatic)
            let (oracle, _) = try PNGDecoder.decode(bytes, path: .libpng)
            #expect(automatic == oracle, "\(name): the fast path disagrees with libpng")
            if usedFast { fast += 1 }
            // The formats it takes: 8/16-bit gray, gray+alpha, RGB, RGBA, not interlaced, no tRNS, no PLTE.
            let header = try PNGDecoder.readHeader(bytes)
            let eligible = !header.interlaced && !header.hasTransparencyChunk && header.colorType != .palette
                && (header.bitDepth == 8 || header.bitDepth == 16)
                && !PNGBytes.chunks(of: bytes).contains { $0.type == "PLTE" }
            if eligible && !usedFast { Issue.record("\(name): eligible but decoded by libpng") }
        }
        print("PngSuite: \(fast) of 161 valid files decoded by the fast path, all equal to libpng")
        #expect(fast >= 40)
    }

    @Test func corruptFilesAreLeftToLibpng() throws {
        for name in try Fixtures.corruptPngSuiteFiles() {
            let bytes = try Corpus.bytes(name)
            let fast = Result { try PNGDecoder.decode(bytes, path: .automatic).0 }
            let oracle = Result { try PNGDecoder.decode(bytes, path: .libpng).0 }
            switch (fast, oracle) {
            case (.failure(let a), .failure(let b)):
                #expect("\(a)" == "\(b)", "\(name): different reasons")
            default:
                Issue.record("\(name): both paths must refuse it")
            }
        }
    }
}

/// The fast encoder: lossless, and the same bytes every time (a resume must
/// reproduce an uninterrupted run's outputs), whatever the heap held before.
@Suite struct FastEncoderTests {
    @Test func outputDecodesToTheInputAndIsTheSameEveryTime() async throws {
        let names = try Fixtures.validPngSuiteFiles()
        let images = try names.map { try PNGDecoder.decode(contentsOf: Corpus.path($0)) }
        let first = try images.map { try PNGEncoder.encode($0, options: .init(level: 6)) }
        for (index, bytes) in first.enumerated() {
            #expect(try PNGDecoder.decode(bytes) == images[index], "\(names[index]): not lossless")
        }
        // Again, several at once, so buffers come from a heap that held other data.
        try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for round in 0..<4 {
                for index in images.indices where index % 4 == round {
                    group.addTask { (index, try PNGEncoder.encode(images[index], options: .init(level: 6))) }
                }
            }
            for try await (index, bytes) in group {
                #expect(bytes == first[index], "\(names[index]): different bytes on another run")
            }
        }
    }

    @Test func aLargeImageSpansSegmentsAndStaysExact() async throws {
        // 1500 × 1200 RGBA noise: about 7 MiB of filtered rows, so 7 segments joined into one stream.
        var generator = SeededGenerator(seed: 0x5E6)
        var image = PixelBuffer(width: 1500, height: 1200, depth: .eight)
        for i in image.bytes.indices { image.bytes[i] = UInt8(truncatingIfNeeded: (i / 4) % 251 + Int(generator.next() & 7)) }
        let bytes = try PNGEncoder.encode(image, options: .init(level: 6))
        #expect(try PNGDecoder.decode(bytes, path: .libpng).0 == image)
        #expect(try PNGDecoder.decode(bytes, path: .automatic) == (image, true))
        #expect(PNGBytes.data(of: "IDAT", in: bytes).count >= 1)
        // The same bytes when several encode at once.
        let frozen = image
        try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<4 { group.addTask { try PNGEncoder.encode(frozen, options: .init(level: 6)) } }
            for try await again in group { #expect(again == bytes, "the fast encoder gave other bytes") }
        }
    }

    @Test func theFastWriterPlacesMetadataLikeLibpng() throws {
        // 600 × 400 RGB (720 KB stored): the fast path, with chunks before and after the image data.
        var image = PixelBuffer(width: 600, height: 400, depth: .eight)
        for i in image.bytes.indices { image.bytes[i] = i % 4 == 3 ? 255 : UInt8(truncatingIfNeeded: i / 7) }
        let metadata = PNGMetadata(chunks: [
            PNGChunk(type: "gAMA", data: PNGBytes.bigEndian(45455), placement: .beforePalette),
            PNGChunk(type: "pHYs", data: PNGBytes.bigEndian(2835) + PNGBytes.bigEndian(2835) + [1], placement: .beforeImageData),
            PNGChunk(type: "tIME", data: [7, 208, 1, 1, 0, 0, 0], placement: .beforeImageData),  // rewritten
            PNGChunk(type: "tEXt", data: Array("Comment\0after".utf8), placement: .afterImageData),
        ], sourceColorType: .rgb, sourceBitDepth: 8)
        let fast = try PNGEncoder.encode(image, metadata: metadata, time: 1_700_000_000).bytes
        let zlib = try PNGEncoder.encode(image, options: .init(deflater: .zlib), metadata: metadata, time: 1_700_000_000).bytes
        let order = { (png: [UInt8]) in PNGBytes.chunks(of: png).map(\.type).filter { $0 != "IDAT" } }
        #expect(order(fast) == ["IHDR", "gAMA", "tIME", "pHYs", "tEXt", "IEND"], "\(order(fast))")
        #expect(order(fast) == order(zlib))
        for type in ["gAMA", "pHYs", "tIME", "tEXt"] { #expect(PNGBytes.data(of: type, in: fast) == PNGBytes.data(of: type, in: zlib)) }
        #expect(try PNGDecoder.decode(fast, path: .libpng).0 == image)
    }
}
