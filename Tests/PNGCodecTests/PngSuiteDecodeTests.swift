import Foundation
import ImageCore
import PNGCodec
import Testing

/// SPEC §7: every valid PngSuite file decodes to exactly the reference samples.
@Suite struct PngSuiteDecodeTests {
    @Test func validFilesMatchTheIndependentDecoder() throws {
        let reference: [String: ReferenceImage]
        switch ReferenceDecoder.images {
        case .success(let images): reference = images
        case .failure(let error): Issue.record("\(error)"); return
        }
        let files = try Corpus.validFiles()
        #expect(files.count == 161)
        #expect(reference.count == files.count)
        for name in files {
            let (header, image) = try PNGDecoder.decodeWithHeader(contentsOf: Corpus.path(name))
            let expected = try #require(reference[name], "no reference for \(name)")
            #expect(image.width == expected.width && image.height == expected.height, "\(name): size")
            #expect(image.depth.rawValue == expected.depth, "\(name): depth")
            #expect(image.bigEndianBytes == expected.samples, "\(name): samples differ from pypng")
            checkHeader(header, name: name)
        }
    }

    /// PngSuite names encode the source format: `basn0g01` = not interlaced,
    /// color type 0, bit depth 1; `basi...` = interlaced.
    private func checkHeader(_ header: PNGHeader, name: String) {
        let characters = Array(name)
        guard characters.count == 12, let color = Int(String(characters[4])),
              let depth = Int(String(characters[6...7])) else { return }
        #expect(header.colorType.rawValue == color, "\(name): color type")
        #expect(header.bitDepth == depth, "\(name): bit depth")
        #expect(header.interlaced == (characters[3] == "i"), "\(name): interlace")
        let hasTRNS = ["tb", "tm3", "tp1"].contains { name.hasPrefix($0) }
        #expect(header.hasTransparencyChunk == hasTRNS, "\(name): tRNS")
    }

    @Test func memoryAndFileDecodingAgree() throws {
        for name in try Corpus.validFiles() {
            let fromFile = try PNGDecoder.decode(contentsOf: Corpus.path(name))
            let fromBytes = try PNGDecoder.decode(try Corpus.bytes(name))
            #expect(fromFile == fromBytes, "\(name)")
        }
    }

    @Test func concurrentDecodesGiveTheSameResults() async throws {
        let files = try Corpus.validFiles()
        let sequential = try files.map { try PNGDecoder.decode(contentsOf: Corpus.path($0)) }
        let concurrent = try await withThrowingTaskGroup(of: (Int, PixelBuffer).self) { group in
            for (index, name) in files.enumerated() {
                group.addTask { (index, try PNGDecoder.decode(contentsOf: Corpus.path(name))) }
            }
            var results = [PixelBuffer?](repeating: nil, count: files.count)
            for try await (index, image) in group { results[index] = image }
            return results
        }
        #expect(concurrent == sequential.map { $0 })
    }
}
