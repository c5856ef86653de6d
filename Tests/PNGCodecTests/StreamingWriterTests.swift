import ImageCore
import KilnTestSupport
@testable import PNGCodec
import Testing

/// The PNG writer as a row sink (SPEC §8): an image too large to hold is
/// compressed and written as its rows arrive, and gives exactly the bytes the
/// held encoder gives for the same pixels, however the rows are split.
@Suite struct StreamingWriterTests {
    /// 700 × 500 photo-like pixels (smooth, with noise): several segments on the fast path.
    static func photo(alpha: Bool, depth: PixelBuffer.Depth = .eight, seed: UInt64 = 0x57AE) -> PixelBuffer {
        var generator = SeededGenerator(seed: seed)
        var image = PixelBuffer(width: 700, height: 500, depth: depth)
        let maximum = depth == .eight ? 255 : 65535
        for y in 0..<image.height {
            for x in 0..<image.width {
                let noise = Int(generator.next() % 9)
                let samples = [x * maximum / 700, y * maximum / 500, (x + y) * maximum / 1200,
                               alpha ? (x * 7 + y) % (maximum + 1) : maximum]
                for (c, v) in samples.enumerated() {
                    let value = c == 3 ? v : min(maximum, v + noise)
                    let index = (y * image.width + x) * 4 + c
                    if depth == .eight {
                        image.bytes[index] = UInt8(value)
                    } else {
                        image.bytes.withUnsafeMutableBytes { $0.storeBytes(of: UInt16(value), toByteOffset: 2 * index, as: UInt16.self) }
                    }
                }
            }
        }
        return image
    }

    /// Streams `image` in strips of `strip` rows through a writer that holds nothing.
    static func streamed(_ image: PixelBuffer, level: Int, strip: Int, content: RowContent,
                         metadata: ImageMetadata? = nil, final: ImageMetadata? = nil) throws -> ([UInt8], [DroppedMetadata]) {
        var settings = WriteSettings(level: level, time: 1_700_000_000)
        settings.content = content
        let output = MemoryOutput()
        let writer = try PNGWriter(width: image.width, height: image.height, depth: image.depth, settings: settings,
                                   output: output, holdingAtMost: 0)
        try writer.begin(metadata: metadata, progress: nil)
        let rowBytes = image.width * 4 * image.depth.bytesPerSample
        var y = 0
        while y < image.height {
            let end = min(image.height, y + strip)
            try writer.write(y..<end) { destination in
                image.bytes.withUnsafeBytes { source in
                    destination.copyMemory(from: source.baseAddress! + y * rowBytes, byteCount: (end - y) * rowBytes)
                }
            }
            y = end
        }
        let dropped = try writer.finish(metadata: final ?? metadata)
        return (output.bytes, dropped)
    }

    @Test(arguments: [0, 1, 6, 9])
    func streamingGivesTheHeldEncodersBytes(level: Int) throws {
        for (image, content) in [(Self.photo(alpha: false), RowContent(gray: false, alpha: false)),
                                 (Self.photo(alpha: true), RowContent(gray: false, alpha: true)),
                                 (Self.photo(alpha: false, depth: .sixteen), RowContent(gray: false, alpha: false))] {
            let held = try PNGEncoder.encode(image, options: .init(level: level))
            for strip in [1, 7, 64, 500] {
                let (bytes, _) = try Self.streamed(image, level: level, strip: strip, content: content)
                #expect(bytes == held, "level \(level), strips of \(strip) rows, depth \(image.depth): other bytes")
            }
        }
    }

    @Test func metadataBeforeAndAfterTheImageDataIsPlacedAsWhenHeld() throws {
        let image = Self.photo(alpha: false)
        let chunks = PNGMetadata(chunks: [
            PNGChunk(type: "gAMA", data: PNGBytes.bigEndian(45455), placement: .beforePalette),
            PNGChunk(type: "tIME", data: [7, 208, 1, 1, 0, 0, 0], placement: .beforeImageData),
            PNGChunk(type: "tEXt", data: Array("Comment\0after".utf8), placement: .afterImageData),
        ], sourceColorType: .rgb, sourceBitDepth: 8)
        let metadata = chunks.imageMetadata
        for level in [6, 9] {
            var settings = WriteSettings(level: level, time: 1_700_000_000)
            settings.content = nil
            let held = MemoryOutput()
            let holding = try PNGWriter(width: image.width, height: image.height, depth: image.depth, settings: settings,
                                        output: held)
            try holding.write(image)
            _ = try holding.finish(metadata: metadata)
            let (bytes, dropped) = try Self.streamed(image, level: level, strip: 16, content: RowContent(gray: false, alpha: false),
                                                     metadata: metadata)
            #expect(bytes == held.bytes, "level \(level)")
            #expect(dropped.isEmpty)
            #expect(PNGBytes.chunks(of: bytes).map(\.type).filter { $0 != "IDAT" } == ["IHDR", "gAMA", "tIME", "tEXt", "IEND"])
        }
    }

    @Test func aChunkKnownOnlyAfterTheImageDataIsDroppedAndSaid() throws {
        let image = Self.photo(alpha: false)
        let leading = PNGMetadata(chunks: [], sourceColorType: .rgb, sourceBitDepth: 8).imageMetadata
        let late = PNGMetadata(chunks: [PNGChunk(type: "pHYs", data: PNGBytes.bigEndian(2835) + PNGBytes.bigEndian(2835) + [1],
                                                 placement: .beforeImageData)],
                               sourceColorType: .rgb, sourceBitDepth: 8).imageMetadata
        let (bytes, dropped) = try Self.streamed(image, level: 1, strip: 50, content: RowContent(gray: false, alpha: false),
                                                 metadata: leading, final: late)
        #expect(dropped.map(\.type) == ["pHYs"])
        #expect(PNGBytes.data(of: "pHYs", in: bytes).isEmpty)
        #expect(try PNGDecoder.decode(bytes, path: .libpng).0 == image)
    }

    @Test func rowsTheHeaderCannotHoldAreRefusedNotChanged() throws {
        let colour = Self.photo(alpha: false)
        #expect(throws: PNGError.self) {
            _ = try Self.streamed(colour, level: 1, strip: 32, content: RowContent(gray: true, alpha: false))
        }
        let transparent = Self.photo(alpha: true)
        #expect(throws: PNGError.self) {
            _ = try Self.streamed(transparent, level: 9, strip: 32, content: RowContent(gray: false, alpha: false))
        }
    }

    @Test func grayContentStreamsAsGray() throws {
        var image = PixelBuffer(width: 640, height: 480, depth: .eight)
        for i in 0..<(640 * 480) {
            let v = UInt8(truncatingIfNeeded: i / 640 + i % 640 / 3)
            image.bytes[4 * i] = v; image.bytes[4 * i + 1] = v; image.bytes[4 * i + 2] = v; image.bytes[4 * i + 3] = 255
        }
        let (bytes, _) = try Self.streamed(image, level: 6, strip: 20, content: RowContent(gray: true, alpha: false))
        #expect(bytes == (try PNGEncoder.encode(image, options: .init(level: 6))))
        #expect(PNGBytes.data(of: "IHDR", in: bytes).first?[9] == 0, "colour type 0, gray")
    }

    /// A held image that a palette can hold too is encoded both ways, the smaller kept: each reports its share of the
    /// encode. The palette's said nothing, and noisy gray images at level 9 (256 grays) stood still for seconds among
    /// more images than cores, long enough for a short --stall-timeout to stop a job that worked.
    @Test func bothFormsTriedReportTheirHalf() throws {
        var generator = SeededGenerator(seed: 11)
        var image = PixelBuffer(width: 400, height: 400, depth: .eight)
        for pixel in 0..<(400 * 400) {
            let gray = UInt8(truncatingIfNeeded: generator.next())
            for channel in 0..<3 { image.bytes[4 * pixel + channel] = gray }
            image.bytes[4 * pixel + 3] = 255
        }
        let seen = Collected<Double>()
        _ = try PNGEncoder.encode(image, options: .init(level: 9), metadata: nil, progress: EncodeProgress { seen.append($0) })
        let reported = seen.all
        // (Gray: a byte a pixel either way, so each form is half.)
        #expect(reported.contains { $0 > 0 && $0 <= 0.5 }, "the palette's half: \(reported)")
        #expect(reported.last == 1 && zip(reported, reported.dropFirst()).allSatisfy { $0 < $1 }, "\(reported)")
    }
}
