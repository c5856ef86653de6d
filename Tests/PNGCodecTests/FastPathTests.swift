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
