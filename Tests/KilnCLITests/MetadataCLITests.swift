import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// Colour and metadata fidelity through `kiln export`: what the photographer
/// put in the file comes out (defaults), `--strip` keeps only colour, a
/// profile that cannot describe the output is dropped with a warning, and a
/// damaged ancillary chunk costs that chunk with a warning, never the image.
@Suite struct MetadataCLITests {
    /// PngSuite's ancillary files (text, pHYs, sBIT, hIST, tIME, gamma, chromaticity) in a folder.
    private func ancillaryInputs(_ dir: TemporaryDirectory) throws -> [String] {
        let prefixes = ["ct", "cd", "cs", "ch", "cm", "g0", "g1", "g2", "ccw"]
        let names = try Fixtures.validPngSuiteFiles().filter { name in prefixes.contains { name.hasPrefix($0) } }
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        for name in names {
            try FileManager.default.copyItem(atPath: try Fixtures.pngSuitePath(name), toPath: dir.join("in/" + name))
        }
        return names
    }

    /// The ancillary chunks of a PNG file, in order, without tIME.
    private func ancillary(_ path: String) throws -> [(String, [UInt8])] {
        let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        return PNGBytes.chunks(of: png)
            .filter { !["IHDR", "PLTE", "IDAT", "IEND", "tRNS", "tIME"].contains($0.type) }
            .map { ($0.type, Array(png[$0.dataOffset..<($0.dataOffset + $0.length)])) }
    }

    @Test func defaultsKeepEveryChunkThatStillHoldsAndStripKeepsColour() throws {
        let dir = try TemporaryDirectory()
        let names = try ancillaryInputs(dir)
        let kept = try kiln(["export", dir.join("in"), "-o", dir.join("kept"), "--device", "cpu", "--progress", "json"])
        #expect(kept.status == 0, "\(kept.stderr)")
        let stripped = try kiln(["export", dir.join("in"), "-o", dir.join("strip"), "--strip", "--device", "cpu",
                                 "--progress", "json"])
        #expect(stripped.status == 0, "\(stripped.stderr)")
        var chunks = 0
        for name in names {
            let source = try ancillary(dir.join("in/" + name))
            let output = try ancillary(dir.join("kept/" + name))
            // Same chunks, same bytes, same order, except the format-bound ones of
            // palette sources (outputs are never palette): hIST, sBIT, bKGD, sPLT.
            let expected = source.filter { type, _ in
                !["hIST", "sBIT", "bKGD", "sPLT"].contains(type) || !name.contains("3p")
            }
            #expect(output.map(\.0) == expected.map(\.0), "\(name)")
            #expect(output.map(\.1) == expected.map(\.1), "\(name)")
            chunks += output.count
            // tIME: present exactly when the source had one.
            let sourceHasTime = PNGBytes.data(of: "tIME", in: [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("in/" + name))))).count
            let outputHasTime = PNGBytes.data(of: "tIME", in: [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("kept/" + name))))).count
            #expect(sourceHasTime == outputHasTime, "\(name): tIME")
            // Pixels as ever.
            #expect(try PNGDecoder.decode(contentsOf: dir.join("kept/" + name))
                    .sameSamples(as: PNGDecoder.decode(contentsOf: dir.join("in/" + name))), "\(name): pixels changed")
            // --strip: only what defines colour.
            let colour: Set = ["iCCP", "sRGB", "gAMA", "cHRM", "cICP", "mDCv", "cLLi"]
            let strippedTypes = try ancillary(dir.join("strip/" + name)).map(\.0)
            #expect(strippedTypes.allSatisfy(colour.contains), "\(name): \(strippedTypes)")
            #expect(strippedTypes == source.map(\.0).filter(colour.contains), "\(name)")
        }
        print("kiln export kept \(chunks) ancillary chunks of \(names.count) PngSuite files")
        let check = try ChildProcess("/usr/bin/pngcheck", ["-q"] + names.map { dir.join("kept/" + $0) }).wait()
        #expect(check.status == 0, "pngcheck: \(check.stdout)")
    }

    /// An RGB image tagged with an RGB ICC profile and a zTXt caption.
    private func taggedRGB(_ path: String, damage: String? = nil) throws {
        var pixels: [UInt8] = []
        for i in 0..<64 { pixels += [UInt8(i * 3), UInt8(255 - i * 2), UInt8(i), 255] }
        var png = try PNGEncoder.encode(PixelBuffer(width: 8, height: 8, depth: .eight, bytes: pixels))
        let caption: [UInt8] = Array("Title".utf8) + [0, 0] + PNGBytes.zlibStored(Array("A caption".utf8))
        let profile: [UInt8] = Array("P3".utf8) + [0, 0] + PNGBytes.zlibStored(PNGBytes.iccHeader(space: "RGB "))
        png = PNGBytes.insertAfterHeader(PNGBytes.chunk("zTXt", caption), into: png)
        png = PNGBytes.insertAfterHeader(PNGBytes.chunk("iCCP", profile), into: png)
        if let damage, let chunk = PNGBytes.chunks(of: png).first(where: { $0.type == damage }) {
            png[chunk.dataOffset + chunk.length - 1] ^= 0xFF  // the zlib stream's Adler-32
            PNGBytes.fixCRC(&png, chunk)
        }
        try Data(png).write(to: URL(fileURLWithPath: path))
    }

    /// `SOURCE_DATE_EPOCH=0` is a time (1970-01-01): the tIME is written with it. Before, 0 meant "no tIME" inside
    /// the encoder, and the chunk was dropped silently. A value that is no whole number is said, not ignored.
    @Test func sourceDateEpochZeroIsATime() throws {
        let dir = try TemporaryDirectory()
        let timed = PNGBytes.insertAfterHeader(PNGBytes.chunk("tIME", [0x07, 0xEA, 11, 28, 1, 9, 21]),
                                               into: try PNGEncoder.encode(PixelBuffer(width: 4, height: 4, depth: .eight,
                                                                                       bytes: [UInt8](repeating: 200, count: 64))))
        try Data(timed).write(to: URL(fileURLWithPath: dir.join("timed.png")))
        for (epoch, stamp) in [("0", [0x07, 0xB2, 1, 1, 0, 0, 0]), ("1", [0x07, 0xB2, 1, 1, 0, 0, 1])] as [(String, [UInt8])] {
            let r = try kiln(["export", dir.join("timed.png"), "-o", dir.join("out-" + epoch), "--progress", "json"],
                             environment: ["SOURCE_DATE_EPOCH": epoch])
            #expect(r.status == 0 && Events(r.stdoutLines).named("warning").isEmpty, "\(r.stdout)")
            let output = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("out-\(epoch)/timed.png"))))
            #expect(PNGBytes.data(of: "tIME", in: output) == [stamp], "SOURCE_DATE_EPOCH=\(epoch)")
        }
        for value in ["1700000000.5", "-5"] {
            let bad = try kiln(["export", dir.join("timed.png"), "-o", dir.join("out-bad\(value)"), "--progress", "json"],
                               environment: ["SOURCE_DATE_EPOCH": value])
            #expect(bad.status == 0, "\(bad.stderr)")
            #expect(Events(bad.stdoutLines).named("warning").map { $0[string: "message"] }
                        .contains { $0.hasPrefix("SOURCE_DATE_EPOCH=\(value) is not a whole number") }, "\(bad.stdout)")
        }
    }

    /// sBIT says how many bits of each sample are significant: it holds while the samples keep their values (turned,
    /// mirrored, cropped) and is left out once an operation computes new ones. A resize of 5-6-5 data kept "5 6 5"
    /// beside values of every bit, which a reader honouring it cuts down (vips and ImageMagick drop it).
    @Test func sBITIsKeptOnlyWhileTheValuesAre() throws {
        let dir = try TemporaryDirectory()
        // 5-6-5 samples, each replicated to 8 bits as the chunk promises, varied so that a resize makes new values.
        let rows: [[UInt8]] = (0..<8).map { y in
            (0..<16).flatMap { x -> [UInt8] in
                let (r, g, b) = (UInt8((x * 2 + y) % 32), UInt8((x + y * 7) % 64), UInt8((x * 3 + y * 5) % 32))
                return [r << 3 | r >> 2, g << 2 | g >> 4, b << 3 | b >> 2]
            }
        }
        let png = PNGBytes.stored(width: 16, colorType: 2, rows: rows, before: PNGBytes.chunk("sBIT", [5, 6, 5]))
        try Data(png).write(to: URL(fileURLWithPath: dir.join("565.png")))
        let cases: [(String, [String], Bool)] = [("none", [], true), ("turned", ["--rotate", "90", "--flip", "h"], true),
                                                 ("resized", ["--resize", "8x"], false),
                                                 ("brighter", ["--brightness", "0.05"], false)]
        for (name, flags, kept) in cases {
            let r = try kiln(["export", dir.join("565.png"), "-o", dir.join(name)] + flags)
            #expect(r.status == 0, "\(name): \(r.stderr)")
            let output = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join(name + "/565.png"))))
            #expect(PNGBytes.data(of: "sBIT", in: output) == (kept ? [[5, 6, 5]] : []), "\(name)")
        }
    }

    /// Before: a gray PNG's gray profile was written into JPEG and WebP outputs, whose rows are colour
    /// (a three-component JPEG tagged GRAY), and a gray JPEG's was dropped from its gray PNG output.
    @Test(.enabled(if: ImageTools.has("convert") && ImageTools.has("exiftool"), "needs ImageMagick and exiftool"))
    func aGrayProfileStaysWithGrayRowsOnly() throws {
        let dir = try TemporaryDirectory()
        let profile = PNGBytes.iccHeader(space: "GRAY")
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        let rows = (0..<8).map { y in (0..<16).map { x in UInt8(x * 16 + y) } }
        let iccp = PNGBytes.chunk("iCCP", Array("gray".utf8) + [0, 0] + PNGBytes.zlibStored(profile))
        try Data(PNGBytes.stored(width: 16, colorType: 0, rows: rows, before: iccp)).write(to: URL(fileURLWithPath: dir.join("in/g.png")))
        // A one-component JPEG with the profile in APP2, right after SOI.
        try ImageTools.run("convert", ["-size", "16x8", "gradient:", "-colorspace", "Gray", "-type", "Grayscale", dir.join("plain.jpg")])
        let plain = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("plain.jpg"))))
        let app2 = Array("ICC_PROFILE".utf8) + [0, 1, 1] + profile
        let segment: [UInt8] = [0xFF, 0xE2, UInt8((app2.count + 2) >> 8), UInt8((app2.count + 2) & 0xFF)] + app2
        try Data(plain.prefix(2) + segment + plain.dropFirst(2)).write(to: URL(fileURLWithPath: dir.join("in/j.jpg")))

        func export(_ format: String) throws -> (warnings: [String], out: String) {
            let out = dir.join(format)
            let r = try kiln(["export", dir.join("in"), "-o", out, "--format", format, "--device", "cpu", "--progress", "json"])
            #expect(r.status == 0, "\(format): \(r.stderr)")
            return (Events(r.stdoutLines).named("warning").compactMap { $0["message"] as? String }, out)
        }
        func holdsProfile(_ path: String) throws -> Bool {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            return bytes.indices.dropLast(profile.count).contains { bytes[$0..<($0 + 40)].elementsEqual(profile.prefix(40)) }
        }
        let png = try export("png")
        for name in ["g.png", "j.png"] {
            let output = [UInt8](try Data(contentsOf: URL(fileURLWithPath: png.out + "/" + name)))
            #expect(PNGBytes.data(of: "IHDR", in: output).first?[9] == 0, "\(name): a gray PNG")
            #expect(PNGBytes.data(of: "iCCP", in: output).count == 1, "\(name): the gray profile kept")
        }
        #expect(png.warnings.isEmpty, "\(png.warnings)")
        // A gray JPEG is written with one component, as vips writes it: the gray profile stays (before, three
        // components, and the profile was dropped).
        let jpeg = try export("jpeg")
        for name in ["g", "j"] {
            let path = jpeg.out + "/" + name + ".jpg"
            #expect(try ImageTools.run("exiftool", ["-s3", "-ColorComponents", path]).stdout.hasPrefix("1"), "\(name)")
            #expect(try holdsProfile(path), "\(name): the gray profile kept")
        }
        #expect(jpeg.warnings.isEmpty, "\(jpeg.warnings)")
        // WebP is RGB.
        let webp = try export("webp")
        for name in ["g", "j"] {
            #expect(try !holdsProfile(webp.out + "/" + name + ".webp"), "webp: \(name) still holds the gray profile")
        }
        #expect(webp.warnings.contains { $0.contains("gray colour profile cannot describe a colour output") }, "\(webp.warnings)")
    }

    /// `--grayscale` over an RGB-tagged image: neutral pixels in that profile's space, which only colour rows
    /// can carry. Before, the output was written gray and the profile dropped (with a warning), so under a
    /// profile that is not sRGB it looked otherwise; now it stays RGB, tagged, as vips keeps it.
    @Test func grayscaleKeepsAnRGBProfileAndItsColourRows() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        try taggedRGB(dir.join("in/a.png"))
        try taggedRGB(dir.join("in/b.png"))
        let r = try kiln(["export", dir.join("in"), "-o", dir.join("out"), "--grayscale", "--device", "cpu", "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = Events(r.stdoutLines).named("warning").compactMap { $0["message"] as? String }
        #expect(warnings.isEmpty, "\(warnings)")
        for name in ["a.png", "b.png"] {
            let output = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("out/" + name))))
            #expect(PNGBytes.data(of: "iCCP", in: output).count == 1, "the profile stays")
            #expect(PNGBytes.data(of: "zTXt", in: output).count == 1, "the caption stays")
            #expect(PNGBytes.data(of: "IHDR", in: output).first?[9] == 2, "an RGB PNG")
        }
        let check = try ChildProcess("/usr/bin/pngcheck", ["-q", dir.join("out/a.png"), dir.join("out/b.png")]).wait()
        #expect(check.status == 0, "pngcheck: \(check.stdout)")
    }

    @Test(arguments: ["iCCP", "zTXt"])
    func aDamagedChunkIsAWarningAndTheImageIsWritten(type: String) throws {
        let dir = try TemporaryDirectory()
        try taggedRGB(dir.join("damaged.png"), damage: type)
        let r = try kiln(["export", dir.join("damaged.png"), "-o", dir.join("out"), "--device", "cpu", "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let events = Events(r.stdoutLines)
        let warnings = events.named("warning").compactMap { $0["message"] as? String }
        #expect(warnings.count == 1 && warnings[0].contains("damaged.png") && warnings[0].contains(type), "\(warnings)")
        #expect(events.files("written").count == 1)
        let output = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("out/damaged.png"))))
        #expect(PNGBytes.data(of: type, in: output).isEmpty)
        #expect(PNGBytes.data(of: type == "iCCP" ? "zTXt" : "iCCP", in: output).count == 1)
    }

    @Test func recipeMetadataMatchesTheFlagsAndBadKindsAreUsageErrors() throws {
        let dir = try TemporaryDirectory()
        try taggedRGB(dir.join("in.png"))
        try #"{"operations":[],"output":{"metadata":{"keep":["text"]}}}"#.write(toFile: dir.join("r.json"), atomically: true, encoding: .utf8)
        let recipe = try kiln(["export", dir.join("in.png"), "-o", dir.join("recipe"), "--recipe", dir.join("r.json"), "--device", "cpu", "--progress", "none"])
        let flags = try kiln(["export", dir.join("in.png"), "-o", dir.join("flags"), "--keep", "text", "--device", "cpu", "--progress", "none"])
        #expect(recipe.status == 0 && flags.status == 0, "\(recipe.stderr) \(flags.stderr)")
        let a = try Data(contentsOf: URL(fileURLWithPath: dir.join("recipe/in.png")))
        #expect(a == (try Data(contentsOf: URL(fileURLWithPath: dir.join("flags/in.png")))))
        #expect(PNGBytes.chunks(of: [UInt8](a)).map(\.type) == ["IHDR", "zTXt", "IDAT", "IEND"])

        let bad = try kiln(["export", dir.join("in.png"), "-o", dir.join("bad"), "--keep", "icc,colour"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("colour"), "\(bad.stderr)")
        try #"{"operations":[],"output":{"metadata":{"strip":true,"keep":["icc"]}}}"#.write(toFile: dir.join("both.json"), atomically: true, encoding: .utf8)
        let both = try kiln(["export", dir.join("in.png"), "-o", dir.join("both"), "--recipe", dir.join("both.json")])
        #expect(both.status == 64, "\(both.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.join("bad/in.png")))
    }
}
