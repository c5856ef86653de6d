import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// Size limits are checked from IHDR before any image-sized allocation, and
/// header-level and I/O failures name their cause.
@Suite struct LimitTests {
    @Test func hugeDeclaredImageIsRefusedBeforeAllocating() throws {
        // 100000 × 100000 RGBA would need 40 GB: allocating it would trap, so
        // a clean throw shows the check came first.
        let png = PNGBytes.minimalPNG(width: 100_000, height: 100_000)
        #expect(throws: PNGError.tooManyPixels(width: 100_000, height: 100_000, limit: 1_000_000_000)) {
            try PNGDecoder.decode(png)
        }
        let header = try PNGDecoder.readHeader(png)
        #expect(header.width == 100_000 && header.height == 100_000)
        print("100000×100000: \(PNGError.tooManyPixels(width: 100_000, height: 100_000, limit: 1_000_000_000))")
    }

    @Test func sideBeyondThePixelBudgetIsRefusedByLibpngLimits() {
        // A single side over maxPixels trips libpng's own user limit inside IHDR parsing.
        let png = PNGBytes.minimalPNG(width: 1_500_000_000, height: 1)
        #expect(throws: PNGError.tooManyPixels(width: 1_500_000_000, height: 1, limit: 1_000_000_000)) {
            try PNGDecoder.decode(png)
        }
    }

    @Test func customLimitsApply() throws {
        let path = Corpus.path("basn6a16.png") // 32 × 32, 16-bit RGBA: 8192 bytes decoded
        #expect(throws: PNGError.tooManyPixels(width: 32, height: 32, limit: 1000)) {
            try PNGDecoder.decode(contentsOf: path, limits: .init(maxPixels: 1000))
        }
        #expect(throws: PNGError.tooManyBytes(width: 32, height: 32, bytes: 8192, limit: 8000)) {
            try PNGDecoder.decode(contentsOf: path, limits: .init(maxDecodedBytes: 8000))
        }
        _ = try PNGDecoder.decode(contentsOf: path, limits: .init(maxPixels: 1024, maxDecodedBytes: 8192))
        #expect(PNGDecoder.Limits(maxPixels: 10).maxDecodedBytes == 80)
    }

    @Test func invalidHeaderFieldsAreNamed() {
        let cases: [([UInt8], String)] = [
            (PNGBytes.minimalPNG(width: 0, height: 1), "width 0"),
            (PNGBytes.minimalPNG(width: 1, height: 0), "height 0"),
            (PNGBytes.minimalPNG(width: 1, height: 1, bitDepth: 16, colorType: 3), "bit depth 16 is not allowed"),
            (PNGBytes.signature + PNGBytes.chunk("IHDR", [0, 0, 0, 1]), "4 bytes long"),
            (PNGBytes.signature + PNGBytes.chunk("IDAT", [0]), "missing IHDR"),
        ]
        for (png, reason) in cases {
            do {
                _ = try PNGDecoder.decode(png)
                Issue.record("accepted: \(reason)")
            } catch let error as PNGError {
                guard case .invalidHeader(let message) = error else {
                    Issue.record("\(reason): got \(error)")
                    continue
                }
                #expect(message.contains(reason), "\(message)")
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    /// An interlaced palette image's decoder holds its indices whole beside the canonical image: the header says
    /// so, and the image's working set counts it.
    @Test func anInterlacedPaletteImageSaysWhatItsDecoderHolds() throws {
        let interlaced = try PNGRowReader(bytes: try Corpus.bytes("basi3p08.png"), limits: .init())
        let plain = try PNGRowReader(bytes: try Corpus.bytes("basn3p08.png"), limits: .init())
        #expect(interlaced.header.heldInputBytes == 32 * 32 && plain.header.heldInputBytes == 0)
    }

    @Test func inputProblemsAreReported() throws {
        #expect(throws: PNGError.notPNG("not a PNG file: the input is empty")) { try PNGDecoder.decode([]) }
        #expect(throws: PNGError.truncated("data ends inside the PNG signature")) {
            try PNGDecoder.decode(Array(PNGBytes.signature.prefix(5)))
        }
        // Where a file cut short ends, chunk headers included: 9 to 15 bytes said "right after the signature".
        let whole = PNGBytes.minimalPNG(width: 1, height: 1)
        let cuts: [(Int, String)] = [
            (8, "data ends right after the signature"),
            (12, "data ends inside the first chunk's header (4 of its 8 bytes)"),
            (20, "data ends inside the IHDR chunk (declared 13 bytes)"),
            (33, "data ends after the IHDR chunk, before IEND"),
            (35, "data ends inside the header of the chunk after IHDR (2 of its 8 bytes)"),
        ]
        for (length, said) in cuts {
            #expect(throws: PNGError.truncated(said), "\(length) bytes") { try PNGDecoder.decode(Array(whole.prefix(length))) }
        }
        do {
            _ = try PNGDecoder.decode(contentsOf: "/nonexistent/kiln.png")
            Issue.record("decoded a missing file")
        } catch let error as PNGError {
            #expect(error == .io("cannot open: No such file or directory"))
            #expect(!error.description.contains("kiln.png"), "errors must not name the file")
        }
        #expect(throws: PNGError.io("read error: Is a directory")) {
            try PNGDecoder.decode(contentsOf: Corpus.pngSuite.path)
        }
    }
}
