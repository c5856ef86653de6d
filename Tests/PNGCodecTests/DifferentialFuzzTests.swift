import Foundation
import ImageCore
import KilnTestSupport
@testable import PNGCodec
import Testing

/// Differential fuzzing of the fast decoder against libpng: the same seeded
/// mutants (bit flips, overwritten, inserted and deleted bytes, bad lengths,
/// chunk data changed behind a fixed CRC, truncations) of every file the fast
/// path takes must decode to the same pixels on both paths, or be refused by
/// both. `KILN_FUZZ_CASES` sets the count (default 10,000; Scripts/fuzz and
/// Scripts/nightly-fuzz run far more), `KILN_TEST_SEED` replays a run.
@Suite struct DifferentialFuzzTests {
    static let cases = ProcessInfo.processInfo.environment["KILN_FUZZ_CASES"].flatMap(Int.init) ?? 10_000

    /// Sources the fast path decodes: PngSuite's and SampleData's, and two
    /// multi-IDAT images from the fast encoder (8-bit RGBA, 16-bit RGB).
    static func sources() throws -> [[UInt8]] {
        var files = try Fixtures.validPngSuiteFiles().map { try Corpus.bytes($0) }
        let sample = URL(fileURLWithPath: Fixtures.repository + "/SampleData")
        for name in try FileManager.default.contentsOfDirectory(atPath: sample.path) where name.hasSuffix(".png") {
            files.append([UInt8](try Data(contentsOf: sample.appendingPathComponent(name))))
        }
        var generator = SeededGenerator(seed: 7)
        var rgba = PixelBuffer(width: 300, height: 200, depth: .eight)
        for i in rgba.bytes.indices { rgba.bytes[i] = UInt8(truncatingIfNeeded: i / 97 + Int(generator.next() & 15)) }
        var deep = PixelBuffer(width: 120, height: 90, depth: .sixteen)
        for i in deep.bytes.indices { deep.bytes[i] = UInt8(truncatingIfNeeded: i * 7 + Int(generator.next() & 3)) }
        files += [try PNGEncoder.encode(rgba), try PNGEncoder.encode(deep)]
        return try files.filter { try PNGDecoder.decode($0, path: .automatic).fastPath }
    }

    @Test(.timeLimit(.minutes(3)))
    func fastPathAndLibpngAgreeOnEveryMutant() throws {
        let seed = ProcessInfo.processInfo.environment["KILN_TEST_SEED"].flatMap { UInt64($0) } ?? .random(in: .min ... .max)
        let sources = try Self.sources()
        #expect(sources.count >= 40, "fast-path sources: \(sources.count)")
        var generator = SeededGenerator(seed: seed)
        let limits = PNGDecoder.Limits(maxPixels: 1 << 20)
        var decodedBoth = 0, refusedBoth = 0, disagreements: [String] = []
        for index in 0..<Self.cases {
            let source = sources[Int.random(in: 0..<sources.count, using: &generator)]
            var mutant = RobustnessTests.corrupt(source, using: &generator)
            if index % 8 == 0 { mutant = Array(mutant.prefix(Int.random(in: 8..<mutant.count, using: &generator))) }
            let fast = Result { try PNGDecoder.decode(mutant, limits: limits, path: .automatic).0 }
            let oracle = Result { try PNGDecoder.decode(mutant, limits: limits, path: .libpng).0 }
            switch (fast, oracle) {
            case (.success(let a), .success(let b)) where a == b: decodedBoth += 1
            case (.failure, .failure): refusedBoth += 1
            default: disagreements.append("case \(index)")
            }
        }
        print("differential fuzzing, seed \(seed) (replay with KILN_TEST_SEED=\(seed)): \(Self.cases) mutants of "
              + "\(sources.count) files, \(decodedBoth) decoded alike, \(refusedBoth) refused by both, "
              + "\(disagreements.count) disagreements")
        #expect(disagreements.isEmpty, "seed \(seed): \(disagreements.prefix(10))")
    }
}
