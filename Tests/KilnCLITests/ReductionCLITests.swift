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

    /// A bKGD (ImageMagick writes one in every PNG) is written in the reduced form where it says the same colour:
    /// before, it pinned the output to the source's colour type, so a black-and-white RGB image with a white bKGD
    /// stayed 24-bit RGB where 1-bit gray keeps it (gray 1), and a three-colour one stayed RGB where a palette
    /// keeps it (the index of its colour, an entry added where no pixel has it).
    @Test func aBackgroundChunkIsWrittenInTheReducedForm() throws {
        let dir = try TemporaryDirectory()
        func write(_ name: String, _ colours: [[UInt8]], background: [UInt8]) throws {
            var bytes: [UInt8] = []
            for y in 0..<16 { for x in 0..<16 { bytes += colours[(x / 4 + y / 4) % colours.count] + [255] } }
            let png = PNGBytes.rgba(PixelBuffer(width: 16, height: 16, depth: .eight, bytes: bytes))
            let bkgd = PNGBytes.chunk("bKGD", background.flatMap { [0, $0] })
            try Data(PNGBytes.insertAfterHeader(bkgd, into: png)).write(to: URL(fileURLWithPath: dir.join(name)))
        }
        try write("gray.png", [[0, 0, 0], [255, 255, 255]], background: [255, 255, 255])
        try write("palette.png", [[200, 10, 10], [10, 200, 10], [10, 10, 200]], background: [10, 200, 10])
        try write("colour.png", [[0, 0, 0], [255, 255, 255]], background: [255, 0, 0])
        // A background no pixel has (ImageMagick's white behind red and blue): the palette gets an entry for it.
        try write("added.png", [[255, 0, 0], [0, 0, 255]], background: [255, 255, 255])
        let r = try kiln(["export", dir.path, "--output", dir.join("out"), "--level", "9", "--progress", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        let expected: [(String, colorType: UInt8, bitDepth: UInt8, bkgd: [UInt8])] = [("gray.png", 0, 1, [0, 1])]
        for (name, colorType, bitDepth, bkgd) in expected {
            let output = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("out/" + name))))
            let header = PNGBytes.data(of: "IHDR", in: output).first ?? []
            #expect(header.count == 13 && header[9] == colorType && header[8] == bitDepth, "\(name): \(header)")
            #expect(PNGBytes.data(of: "bKGD", in: output) == [bkgd], "\(name)")
        }
        // The palette's order is kiln's: the index names the background's entry, whichever it is.
        // A colour background for gray pixels: not gray, but a palette with an entry for it.
        for (name, colour) in [("palette.png", [UInt8]([10, 200, 10])), ("added.png", [255, 255, 255]), ("colour.png", [255, 0, 0])] {
            let output = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("out/" + name))))
            #expect(PNGBytes.data(of: "IHDR", in: output).first?[9] == 3, "\(name): a palette")
            let plte = PNGBytes.data(of: "PLTE", in: output).first ?? []
            let index = Int(PNGBytes.data(of: "bKGD", in: output).first?.first ?? 255)
            #expect(3 * index + 2 < plte.count && Array(plte[(3 * index)..<(3 * index + 3)]) == colour, "\(name): \(plte), \(index)")
        }
        #expect(try pngcheckFailures(["gray.png", "palette.png", "colour.png", "added.png"].map { dir.join("out/" + $0) }) == [])
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
