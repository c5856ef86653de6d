import Foundation
import ImageCore
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

    /// Rows nobody asked for (a crop of the top rows) are still read: a stream damaged past the rows a caller read
    /// (its Adler-32 wrong, or a CRC) fails the read as a whole decode does, so damage never depends on what part of
    /// the picture a job needs (libpng checks them alike). Rejected: reading those rows' chunks with their CRCs checked
    /// but not inflated (the top 100 rows of a 16000×9000 16-bit PNG 3.3 → 0.5 s, vips 0.35), which accepted such a
    /// file when cropped and refused it whole; inflating without unfiltering saved 20 % there and nothing on the others.
    @Test func rowsNobodyAskedForAreStillChecked() throws {
        let width = 16, height = 8
        let rows: [[UInt8]] = (0..<height).map { y in (0..<(width * 3)).map { x in UInt8((x * 7 + y * 29) % 256) } }
        let stream = PNGBytes.zlibStored(rows.flatMap { [UInt8(0)] + $0 })
        let split = stream.count / 2  // rows 0 and 1 lie in the first chunk
        func file(adlerWrong: Bool, secondCRCWrong: Bool) -> [UInt8] {
            var data = stream
            if adlerWrong { data[data.count - 1] ^= 0xFF }
            var second = PNGBytes.chunk("IDAT", Array(data[split...]))
            if secondCRCWrong { second[second.count - 1] ^= 1 }
            return PNGBytes.signature + PNGBytes.ihdr(width: UInt32(width), height: UInt32(height), colorType: 2)
                + PNGBytes.chunk("IDAT", Array(data[..<split])) + second
                + PNGBytes.chunk("tEXt", Array("Comment\0after the pixels".utf8)) + PNGBytes.chunk("IEND", [])
        }
        func topRows(of bytes: [UInt8]) throws -> ImageMetadata {
            let reader = try PNGRowReader(bytes: bytes, limits: .init())
            var top = [UInt8](repeating: 0, count: 2 * width * 4)
            try top.withUnsafeMutableBytes { try reader.read(0..<2, into: $0.baseAddress!) }
            return try reader.finish()
        }
        #expect(try topRows(of: file(adlerWrong: false, secondCRCWrong: false)).carried?.blocks.map(\.type) == ["tEXt"])
        for (adler, crc) in [(true, false), (false, true)] {
            let bytes = file(adlerWrong: adler, secondCRCWrong: crc)
            #expect(throws: (any Error).self, "whole") { _ = try PNGDecoder.decode(bytes, path: .automatic) }
            #expect(throws: (any Error).self, "the top rows") { _ = try topRows(of: bytes) }
        }
    }

    /// A zlib header of a 64 KiB window (CINFO 8), which RFC 1950 forbids: ISA-L decoded it, so the fast path
    /// took a file zlib, libpng and pngcheck refuse ("invalid window size"). Now it is left to libpng, which says so.
    @Test func aZlibWindowPast32KiBIsLeftToLibpng() throws {
        let rows: [[UInt8]] = (0..<8).map { y in (0..<48).map { x in UInt8((x * 5 + y * 3) % 256) } }
        let raw: [UInt8] = rows.flatMap { [UInt8(0)] + $0 }
        // CMF 0x88 (deflate, CINFO 8); FLG 0x1C makes (CMF × 256 + FLG) a multiple of 31.
        let stream = [UInt8(0x88), 0x1C] + PNGBytes.zlibStored(raw).dropFirst(2)
        let bytes = PNGBytes.signature + PNGBytes.ihdr(width: 16, height: 8, colorType: 2) + PNGBytes.chunk("IDAT", Array(stream))
            + PNGBytes.chunk("IEND", [])
        let fast = Result { try PNGDecoder.decode(bytes, path: .automatic).0 }
        let oracle = Result { try PNGDecoder.decode(bytes, path: .libpng).0 }
        switch (fast, oracle) {
        case (.failure(let a), .failure(let b)):
            #expect("\(a)" == "\(b)" && "\(a)".contains("invalid window size"), "\(a) / \(b)")
        default:
            Issue.record("both paths must refuse it: fast \(fast), libpng \(oracle)")
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
            #expect(try PNGDecoder.decode(bytes).sameSamples(as: images[index]), "\(names[index]): not lossless")
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

    /// Small images are deflated whole (libdeflate, or Huffman coding alone for
    /// noise-like rows): exact, and no larger than zlib's output through libpng.
    @Test func smallImagesAreExactAndNoLargerThanZlibs() throws {
        var generator = SeededGenerator(seed: 0x511)
        // A downscaled noisy gradient with an alpha ramp (an S1 output: short
        // matches cost more than they save; libdeflate alone made it 4 % larger
        // than zlib), and an icon-like image of flat shapes, where matches pay.
        var noise = PixelBuffer(width: 32, height: 32, depth: .eight)
        for y in 0..<32 {
            for x in 0..<32 {
                for c in 0..<3 {
                    let fine = (0..<4).reduce(0) { sum, _ in sum + Int(generator.next() % 8) }
                    noise.bytes[(y * 32 + x) * 4 + c] = UInt8(truncatingIfNeeded: 40 * c + 2 * x * (c + 1) + 2 * y * (3 - c) + fine / 4)
                }
                noise.bytes[(y * 32 + x) * 4 + 3] = UInt8(min(255, 64 + (x + y) * 4))
            }
        }
        var icon = PixelBuffer(width: 48, height: 48, depth: .eight)
        for y in 0..<48 {
            for x in 0..<48 {
                let inside = (x - 24) * (x - 24) + (y - 24) * (y - 24) < 400
                let stripe = (x / 6 + y / 6) % 2 == 0
                let pixel: [UInt8] = inside ? (stripe ? [200, 40, 40, 255] : [250, 250, 250, 255]) : [0, 0, 0, 0]
                for c in 0..<4 { icon.bytes[(y * 48 + x) * 4 + c] = pixel[c] }
            }
        }
        for (name, image) in [("noise", noise), ("icon", icon)] {
            for level in [1, 6] {
                let fast = try PNGEncoder.encode(image, options: .init(level: level))
                let zlib = try PNGEncoder.encode(image, options: .init(level: level, deflater: .zlib))
                #expect(try PNGDecoder.decode(fast, path: .libpng).0 == image, "\(name) at level \(level): not lossless")
                #expect(Double(fast.count) <= Double(zlib.count) * 1.02,
                        "\(name) at level \(level): \(fast.count) bytes, zlib's \(zlib.count)")
            }
        }
    }
}
