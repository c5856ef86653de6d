import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// `kiln export` writes each held output in its smallest exact form (SPEC
/// §4.1), pixel for pixel the input.
@Suite struct ReductionCLITests {
    /// Each reduction's image and its one-sample-off twin, given as plain RGBA
    /// PNGs: the image's output is reduced, the twin's is not, both decode to
    /// the input's pixel values.
    @Test func exportWritesEachReductionWhereThePixelsAllowIt() throws {
        let input = try TemporaryDirectory(), out = try TemporaryDirectory()
        var expected: [String: (PixelBuffer, ReducibleImages.Form)] = [:]
        for (index, reduction) in ReducibleImages.all.enumerated() {
            for (image, form, which) in [(reduction.image, reduction.reduced, "image"), (reduction.twin, reduction.kept, "twin")] {
                let name = "\(index)-\(which).png"
                try Data(PNGBytes.rgba(image)).write(to: URL(fileURLWithPath: input.join(name)))
                expected[name] = (image, form)
            }
        }
        let r = try kiln(["export", input.path, "--output", out.path, "--progress", "none"])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(try pngcheckFailures(expected.keys.map { out.join($0) }) == [])
        for (name, (image, form)) in expected.sorted(by: { $0.key < $1.key }) {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out.join(name))))
            #expect(ReducibleImages.Form(of: bytes) == form, "\(name)")
            #expect(try PNGDecoder.decode(bytes).sameSamples(as: image), "\(name): pixels changed")
        }
    }

    /// PngSuite's 161 valid files re-exported at level 9 without metadata:
    /// every output has exactly its input's pixel values, and at least 150
    /// (issue 26's bar; 156 measured with libdeflate's 12 for small images at
    /// level 9, BENCHMARKS.md) are no larger than their input.
    @Test func pngSuiteAtLevel9IsExactAndMostlyNoLarger() throws {
        let out = try TemporaryDirectory()
        let r = try kiln(["export", Paths.pngSuite, "--output", out.path, "--level", "9", "--strip", "--progress", "none"])
        #expect(r.status == 1, "only the x*.png files fail; stderr: \(r.stderr)")
        let names = try Fixtures.validPngSuiteFiles()
        #expect(names.count == 161)
        var noLarger: [String] = [], larger: [String] = []
        for name in names {
            let source = Paths.pngSuite + "/" + name, output = out.join(name)
            #expect(try PNGDecoder.decode(contentsOf: output).sameSamples(as: PNGDecoder.decode(contentsOf: source)),
                    "\(name): pixels changed")
            let sizes = try [source, output].map { try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int ?? 0 }
            if sizes[1] <= sizes[0] { noLarger.append(name) } else { larger.append("\(name) \(sizes[0]) → \(sizes[1])") }
        }
        print("PngSuite at level 9, stripped: \(noLarger.count) of \(names.count) outputs no larger than their input; "
              + "larger: \(larger.joined(separator: ", "))")
        #expect(noLarger.count >= 150)
    }
}
