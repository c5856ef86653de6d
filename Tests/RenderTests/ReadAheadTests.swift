import Compute
import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// The decoder read ahead on a thread of its own (`ReadAhead`, used by the
/// schedule while a core is spare): the same rows, in order, errors passed on,
/// never a hang.
@Suite("read-ahead: a decoder on a thread of its own")
struct ReadAheadTests {
    /// A 300×97 image in blocks of 7 rows (about 8 KiB of stored rows): 14 blocks, 3 slots.
    static func png(seed: UInt64, depth: PixelBuffer.Depth) -> (PixelBuffer, [UInt8]) {
        var generator = SeededGenerator(seed: seed)
        let image = TestImages.image(width: 300, height: 97, depth: depth, alpha: true, using: &generator)
        return (image, try! PNGEncoder.encode(image))
    }

    static func blockBytes(_ image: PixelBuffer) -> Int { 7 * image.width * 4 * image.depth.bytesPerSample }

    /// A block is at least 1 MiB where the image has that much, so that the allocator maps each one of its own and
    /// gives it back when freed: blocks just short of it (whole rows up to 1 MiB) came from its heap, and a batch of
    /// small images at `--jobs 64` left them scattered there (200 MB under `--memory 100M`).
    @Test(arguments: [(800, 600), (256, 4096), (6000, 4000), (1, 100000), (800, 100)])
    func aBlockIsAtLeastAMebibyte(width: Int, height: Int) {
        let rowBytes = width * 4
        let block = ReadAhead.bytes(width: width, height: height, depth: .eight) / ReadAhead.slotCount
        #expect(block % rowBytes == 0, "whole rows")
        #expect(block >= min(1 << 20, height * rowBytes) && block < (1 << 20) + rowBytes, "\(width) × \(height): \(block)")
    }

    @Test("rows read in pieces that cross blocks, skipping some, are the decoded rows; the reader then finishes",
          arguments: [PixelBuffer.Depth.eight, .sixteen])
    func rowsMatch(depth: PixelBuffer.Depth) throws {
        let seed = TestSeed()
        let (image, png) = Self.png(seed: seed.value, depth: depth)
        let reader = try PNGRowReader(bytes: png, limits: .init())
        let ahead = ReadAhead.start(reader, blockBytes: Self.blockBytes(image))
        // Pieces of 1, 5, 13 and 30 rows (within a block and across several), with a gap.
        let pieces = [0..<1, 1..<6, 6..<19, 25..<55, 55..<97]
        for rows in pieces {
            var got = [UInt8](repeating: 0, count: rows.count * image.rowBytes)
            try got.withUnsafeMutableBytes { try ahead.read(rows, into: $0.baseAddress!) }
            let want = Array(image.bytes[(rows.lowerBound * image.rowBytes)..<(rows.upperBound * image.rowBytes)])
            #expect(got == want, "\(seed): rows \(rows) differ")
        }
        try ahead.stop()
        _ = try reader.finish()
    }

    @Test("a damaged stream: the read that needs the damaged rows throws the decoder's error, stop throws it too")
    func damageIsPassedOn() throws {
        let seed = TestSeed()
        let (image, png) = Self.png(seed: seed.value, depth: .eight)
        // Cut inside IDAT: the first rows decode, the last do not.
        let reader = try PNGRowReader(bytes: Array(png.prefix(png.count * 2 / 3)), limits: .init())
        let ahead = ReadAhead.start(reader, blockBytes: Self.blockBytes(image))
        var row = [UInt8](repeating: 0, count: image.rowBytes)
        #expect(throws: (any Error).self, "\(seed): reading every row of a cut stream succeeded") {
            for y in 0..<image.height {
                try row.withUnsafeMutableBytes { try ahead.read(y..<(y + 1), into: $0.baseAddress!) }
            }
        }
        #expect(throws: (any Error).self, "\(seed): stop did not report the decoder's error") { try ahead.stop() }
    }

    @Test("stopped after a few rows (a crop, a failed render): the rows read are right, stop returns, the reader then finishes the file")
    func stopEarly() throws {
        let seed = TestSeed()
        let (image, png) = Self.png(seed: seed.value, depth: .eight)
        let reader = try PNGRowReader(bytes: png, limits: .init())
        let ahead = ReadAhead.start(reader, blockBytes: Self.blockBytes(image))
        var rows = [UInt8](repeating: 0, count: 3 * image.rowBytes)
        try rows.withUnsafeMutableBytes { try ahead.read(0..<3, into: $0.baseAddress!) }
        #expect(rows == Array(image.bytes[0..<(3 * image.rowBytes)]), "\(seed): the first rows differ")
        try ahead.stop()
        // The reader is where the read-ahead left it: its finish reads the rest of the file.
        _ = try reader.finish()
    }
}
