import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// Corrupt or truncated input must throw `PNGError`, never crash, hang, or be
/// silently accepted when the image data itself is damaged.
@Suite struct RobustnessTests {
    /// Fixed seed for the random corruptions, printed so a failure can be replayed.
    static let seed: UInt64 = 0x4B49_4C4E_2026

    @Test(.timeLimit(.minutes(1)))
    func truncationsOfALargePNGAlwaysThrow() throws {
        let png = try PNGEncoder.encode(Self.noiseImage(width: 1600, height: 1200), options: .init(level: 1))
        #expect(png.count > 3_000_000, "want a multi-megabyte stream, got \(png.count) bytes")
        let offsets = Self.truncationOffsets(for: png, count: 200)
        #expect(offsets.count == 200)
        var mismatches: [String] = []
        try png.withUnsafeBytes { all in
            for offset in offsets {
                let prefix = UnsafeRawBufferPointer(rebasing: all[0..<offset])
                do {
                    _ = try PNGDecoder.decode(prefix)
                    mismatches.append("\(offset): decoded")
                } catch let error as PNGError {
                    let expectedKind: Bool
                    if case .truncated = error { expectedKind = offset > 0 } else { expectedKind = offset == 0 }
                    if !expectedKind { mismatches.append("\(offset): \(error)") }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        print("truncated a \(png.count)-byte PNG at \(offsets.count) offsets: every one threw")
    }

    @Test(.timeLimit(.minutes(1)))
    func randomCorruptionsThrowOrDecodeButNeverCrash() throws {
        let clock = ContinuousClock()
        let start = clock.now
        let files = try Corpus.validFiles()
        let originals = try files.map { try Corpus.bytes($0) }
        var generator = SeededGenerator(seed: Self.seed)
        // Small budget: a corrupted IHDR must not make the fuzzer allocate much.
        let limits = PNGDecoder.Limits(maxPixels: 1 << 20)
        var rejected = 0
        var decoded = 0
        for _ in 0..<1000 {
            let index = Int.random(in: 0..<files.count, using: &generator)
            let corrupted = Self.corrupt(originals[index], using: &generator)
            do {
                let image = try PNGDecoder.decode(corrupted, limits: limits)
                #expect(image.bytes.count == image.pixelCount * image.bytesPerPixel)
                decoded += 1
            } catch is PNGError {
                rejected += 1
            }
        }
        let elapsed = clock.now - start
        print("1000 corruptions (seed 0x\(String(Self.seed, radix: 16))): \(rejected) rejected, \(decoded) decoded, \(elapsed)")
        #expect(rejected + decoded == 1000)
        #expect(rejected > 500)
        #expect(elapsed < .seconds(30))
    }

    @Test func damagedImageDataBehindValidCRCsIsAnError() throws {
        let original = try Corpus.bytes("basn2c08.png")
        let chunks = PNGBytes.chunks(of: original)
        let idat = try #require(chunks.first { $0.type == "IDAT" })
        let zlib = Array(original[idat.dataOffset..<(idat.dataOffset + idat.length)])
        let head = Array(original[0..<idat.offset])
        let tail = Array(original[idat.end...])
        var badChecksum = zlib
        badChecksum[badChecksum.count - 1] ^= 0x01
        let cases: [(String, [UInt8])] = [
            ("bad Adler-32", head + PNGBytes.chunk("IDAT", badChecksum) + tail),
            ("extra data after the zlib stream", head + PNGBytes.chunk("IDAT", zlib + [1, 2, 3]) + tail),
            ("zlib stream cut short", head + PNGBytes.chunk("IDAT", Array(zlib.dropLast(8))) + tail),
            ("bad CRC on an IDAT after the image",
             head + PNGBytes.chunk("IDAT", zlib) + [0, 0, 0, 1, 0x49, 0x44, 0x41, 0x54, 9, 0, 0, 0, 0] + tail),
            ("no IEND", head + PNGBytes.chunk("IDAT", zlib)),
        ]
        for (what, png) in cases {
            let error = Self.error(decoding: png)
            #expect(error != nil, "\(what) was accepted")
            print("\(what): \(error.map { "\($0)" } ?? "accepted")")
        }
    }

    @Test func idatAfterACompleteVerifiedStreamIsSkipped() throws {
        // libpng has already checked the whole zlib stream (Adler-32 included)
        // when it meets the extra chunk, so the pixels are exact.
        let original = try Corpus.bytes("basn2c08.png")
        let idat = try #require(PNGBytes.chunks(of: original).first { $0.type == "IDAT" })
        var extended = original
        extended.insert(contentsOf: PNGBytes.chunk("IDAT", [9, 9]), at: idat.end)
        #expect(try PNGDecoder.decode(extended) == PNGDecoder.decode(original))
    }

    @Test func damagedAncillaryChunkIsSkipped() throws {
        let original = try Corpus.bytes("ct1n0g04.png")
        let text = try #require(PNGBytes.chunks(of: original).first { $0.type == "tEXt" })
        var damaged = original
        damaged[text.dataOffset + 2] ^= 0x20 // CRC now fails: libpng drops the chunk
        #expect(try PNGDecoder.decode(damaged) == PNGDecoder.decode(original))
    }

    @Test func libpngNeverWritesToStandardError() throws {
        // A damaged ancillary chunk makes libpng warn; the shim must swallow it.
        let original = try Corpus.bytes("ct1n0g04.png")
        let text = try #require(PNGBytes.chunks(of: original).first { $0.type == "tEXt" })
        var damaged = original
        damaged[text.dataOffset] ^= 0x01
        let captured = try StandardErrorCapture.run {
            _ = try? PNGDecoder.decode(damaged)
            _ = try? PNGDecoder.decode(contentsOf: Corpus.path("xcsn0g01.png"))
        }
        // Other suites may write to stderr meanwhile; only libpng's own prefix matters.
        #expect(!captured.contains("libpng"), "\(captured)")
    }

    /// The `PNGError` decoding throws, or nil when it succeeds.
    private static func error(decoding png: [UInt8]) -> PNGError? {
        do {
            _ = try PNGDecoder.decode(png)
            return nil
        } catch let error as PNGError {
            return error
        } catch {
            Issue.record("not a PNGError: \(error)")
            return nil
        }
    }

    /// Cut points: inside the signature and IHDR, around the first, second and
    /// last IDAT and IEND, then evenly spread through the image data.
    static func truncationOffsets(for png: [UInt8], count: Int) -> [Int] {
        var offsets: Set<Int> = [0, 1, 4, 7, 8, 9, 12, 15, 16, 20, 24, 28, 29, 32, 33]
        let chunks = PNGBytes.chunks(of: png)
        let idats = chunks.filter { $0.type == "IDAT" }
        for chunk in [idats[0], idats[1], idats[idats.count - 1], chunks[chunks.count - 1]] {
            for delta in [-1, 0, 1, 4, 7, 8, 9] { offsets.insert(chunk.offset + delta) }
            for delta in [-5, -4, -3, -1] { offsets.insert(chunk.end + delta) }
        }
        offsets = offsets.filter { $0 < png.count }
        let first = idats[0].dataOffset
        var step = 0
        while offsets.count < count {
            offsets.insert(first + (png.count - first) * step / (count - 50))
            step += 1
        }
        return offsets.sorted()
    }

    /// One random corruption: a bit flip, overwritten bytes, inserted or
    /// deleted bytes, a bad chunk length, or chunk data changed behind a fixed CRC.
    static func corrupt(_ png: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        var bytes = png
        let position = Int.random(in: 0..<bytes.count, using: &generator)
        switch Int.random(in: 0..<6, using: &generator) {
        case 0:
            bytes[position] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
        case 1:
            for i in position..<min(bytes.count, position + Int.random(in: 1...8, using: &generator)) {
                bytes[i] = UInt8.random(in: 0...255, using: &generator)
            }
        case 2:
            let count = Int.random(in: 1...16, using: &generator)
            bytes.insert(contentsOf: (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) },
                         at: position)
        case 3:
            bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...64, using: &generator)))
        case 4:
            let chunks = PNGBytes.chunks(of: bytes)
            let chunk = chunks[Int.random(in: 0..<chunks.count, using: &generator)]
            let length = UInt32.random(in: 0...UInt32.max, using: &generator) >> UInt32.random(in: 0...31, using: &generator)
            bytes.replaceSubrange(chunk.offset..<(chunk.offset + 4), with: PNGBytes.bigEndian(length))
        default:
            let chunks = PNGBytes.chunks(of: bytes).filter { $0.length > 0 }
            let chunk = chunks[Int.random(in: 0..<chunks.count, using: &generator)]
            bytes[chunk.dataOffset + Int.random(in: 0..<chunk.length, using: &generator)] = UInt8.random(
                in: 0...255, using: &generator)
            PNGBytes.fixCRC(&bytes, chunk)
        }
        return bytes
    }

    /// 8-bit RGBA: gradients plus seeded noise, so deflate cannot shrink it much.
    static func noiseImage(width: Int, height: Int) -> PixelBuffer {
        var image = PixelBuffer(width: width, height: height, depth: .eight)
        var generator = SeededGenerator(seed: seed)
        image.bytes.withUnsafeMutableBytes { raw in
            for y in 0..<height {
                for x in 0..<width {
                    let noise = generator.next()
                    let p = (y * width + x) * 4
                    raw[p] = UInt8(truncatingIfNeeded: x / 7 + Int(noise & 31))
                    raw[p + 1] = UInt8(truncatingIfNeeded: y / 5 + Int((noise >> 8) & 31))
                    raw[p + 2] = UInt8(truncatingIfNeeded: (x + y) / 11 + Int((noise >> 16) & 31))
                    raw[p + 3] = 255 - UInt8(truncatingIfNeeded: (noise >> 24) & 15)
                }
            }
        }
        return image
    }
}

/// Captures what the process writes to file descriptor 2 while `body` runs.
enum StandardErrorCapture {
    static func run(_ body: () throws -> Void) throws -> String {
        let folder = try TemporaryFolder()
        let path = try folder.write([], as: "stderr.txt")
        let file = open(path, O_WRONLY | O_CLOEXEC)
        let saved = dup(2)
        guard file >= 0, saved >= 0 else { return "" }
        fflush(nil)
        dup2(file, 2)
        defer {
            fflush(nil)
            dup2(saved, 2)
            close(saved)
            close(file)
        }
        try body()
        fflush(nil)
        return try String(contentsOfFile: path, encoding: .utf8)
    }
}
