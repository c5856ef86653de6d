import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// `--profile`: colour conversion with lcms2, checked against libvips on a
/// Display P3 image that libvips made. Scripts/setup installs vips; without it
/// the comparison cannot be made and the test says so.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/vips"), "needs /usr/bin/vips (Scripts/setup installs it)"))
struct ColorProfileCLITests {
    /// A gradient-and-texture sRGB image converted to Display P3 by vips.
    private func displayP3Image(_ dir: TemporaryDirectory) throws -> String {
        var bytes: [UInt8] = []
        for y in 0..<96 {
            for x in 0..<128 { bytes += [UInt8(x * 2), UInt8(y * 2 + x % 7), UInt8(255 - x - y / 2), 255] }
        }
        try Data(try PNGEncoder.encode(PixelBuffer(width: 128, height: 96, depth: .eight, bytes: bytes)))
            .write(to: URL(fileURLWithPath: dir.join("srgb.png")))
        for arguments in [["icc_import", dir.join("srgb.png"), dir.join("srgb.v"), "--input-profile", "srgb"],
                          ["icc_export", dir.join("srgb.v"), dir.join("in/p3.png"), "--output-profile", "p3"]] {
            try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
            let r = try ChildProcess("/usr/bin/vips", arguments).wait(timeout: .seconds(60))
            #expect(r.status == 0, "vips \(arguments[0]): \(r.stderr)")
        }
        return dir.join("in/p3.png")
    }

    @Test func p3ToSRGBMatchesLibvipsWithinTwoLevelsAndIsTagged() throws {
        let dir = try TemporaryDirectory()
        let input = try displayP3Image(dir)
        let r = try kiln(["export", input, "-o", dir.join("out"), "--profile", "srgb", "--device", "cpu", "--progress", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        let vips = try ChildProcess("/usr/bin/vips", ["icc_transform", input, dir.join("vips.png"), "srgb", "--intent", "relative"])
            .wait(timeout: .seconds(60))
        #expect(vips.status == 0, "\(vips.stderr)")
        let ours = try PNGDecoder.decode(contentsOf: dir.join("out/p3.png"))
        let theirs = try PNGDecoder.decode(contentsOf: dir.join("vips.png"))
        let source = try PNGDecoder.decode(contentsOf: input)
        #expect(ours.width == theirs.width && ours.height == theirs.height && ours.depth == theirs.depth)
        let worst = zip(ours.bytes, theirs.bytes).map { abs(Int($0) - Int($1)) }.max() ?? .max
        let moved = zip(ours.bytes, source.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 2, "kiln vs vips: \(worst) levels apart")
        #expect(moved > 4, "the conversion changed the pixels (by up to \(moved))")
        print("P3 → sRGB: kiln vs vips icc_transform at most \(worst) levels apart (the conversion moved pixels by up to \(moved))")
        // Tagged sRGB: one iCCP named sRGB whose profile is RGB.
        let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("out/p3.png"))))
        let iccp = PNGBytes.data(of: "iCCP", in: png)
        #expect(iccp.count == 1 && iccp.first.map { Array($0.prefix(5)) } == Array("sRGB\0".utf8))
        let (_, _, metadata) = try PNGDecoder.decodeWithMetadata(png)
        #expect(metadata.profileColorSpace == "RGB ")
    }

    @Test func withoutProfileTheP3ProfileIsKeptByteForByte() throws {
        let dir = try TemporaryDirectory()
        let input = try displayP3Image(dir)
        let r = try kiln(["export", input, "-o", dir.join("out"), "--device", "cpu", "--progress", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        let source = PNGBytes.data(of: "iCCP", in: [UInt8](try Data(contentsOf: URL(fileURLWithPath: input))))
        let output = PNGBytes.data(of: "iCCP", in: [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("out/p3.png")))))
        #expect(source.count == 1 && output == source)
    }

    @Test func unusableProfilesAreUsageErrors() throws {
        let dir = try TemporaryDirectory()
        try "not a profile".write(toFile: dir.join("bad.icc"), atomically: true, encoding: .utf8)
        for arguments in [["--profile", dir.join("bad.icc")], ["--profile", dir.join("missing.icc")],
                          ["--profile", "srgb", "--intent", "sideways"], ["--intent", "perceptual"]] {
            let r = try kiln(["export", Paths.sampleData, "-o", dir.join("out")] + arguments)
            #expect(r.status == 64, "\(arguments): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.join("out/rgb8.png")))
    }

    /// The bytes of the Display P3 profile kiln tags outputs with.
    private func displayP3Profile(_ dir: TemporaryDirectory) throws -> [UInt8] {
        let r = try kiln(["export", Paths.sampleData + "/rgb8.png", "-o", dir.join("p3"), "--profile", "p3", "--progress", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        let profile = try PNGDecoder.decodeWithMetadata(contentsOf: dir.join("p3/rgb8.png")).metadata.profileBytes ?? []
        try #require(profile.count > 300)
        return profile
    }

    /// Before: lcms2 opened a profile file cut short (its header and tag table) and failed only on linking, so
    /// `--profile` took it, and every image was left unconverted and untagged with a warning blaming the image's
    /// own profile, the job exiting 0.
    @Test func aProfileCutShortIsAUsageError() throws {
        let dir = try TemporaryDirectory()
        let profile = try displayP3Profile(dir)
        try Data(profile.prefix(300)).write(to: URL(fileURLWithPath: dir.join("cut.icc")))
        // Cut, and its header made to say so: its tags lie past its end (lcms2 reads it, and cannot convert with it).
        var short = Array(profile.prefix(300))
        short.replaceSubrange(0..<4, with: [0, 0, 1, 44])
        try Data(short).write(to: URL(fileURLWithPath: dir.join("short.icc")))
        // A tag placed past the end (libpng's readers drop such a profile: the output read as untagged).
        var tagPast = profile
        tagPast.replaceSubrange(136..<140, with: [0, 0, 0x13, 0x88])  // the first tag's offset: 5000
        try Data(tagPast).write(to: URL(fileURLWithPath: dir.join("tagpast.icc")))
        for (arguments, said) in [(["--profile", dir.join("cut.icc")], "--profile \(dir.join("cut.icc")): the profile is damaged (cut short"),
                                  (["--profile", dir.join("tagpast.icc")], "--profile \(dir.join("tagpast.icc")): the profile is damaged (its tag"),
                                  (["--profile", dir.join("short.icc")], "--profile \(dir.join("short.icc")): the profile is damaged (its tag"),
                                  (["--profile", "srgb", "--input-profile", dir.join("short.icc")],
                                   "--input-profile \(dir.join("short.icc")): the profile is damaged (its tag")] {
            let r = try kiln(["export", Paths.sampleData, "-o", dir.join("out"), "--progress", "none"] + arguments)
            #expect(r.status == 64, "\(arguments): \(r.stderr)")
            #expect(r.stderr.contains(said), "\(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.join("out")))
    }

    /// Before: a PNG with both iCCP and sRGB (which the specification allows one of) was copied with both: an invalid
    /// output (pngcheck: "iCCP not allowed with sRGB"), whose libpng readers took the sRGB chunk where kiln read the
    /// profile. The profile is kept, the sRGB chunk left out, with a warning.
    @Test func aProfileBesideAnSRGBChunkIsKeptAlone() throws {
        let dir = try TemporaryDirectory()
        _ = try displayP3Profile(dir)
        let tagged = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("p3/rgb8.png"))))
        let both = PNGBytes.insertBeforeImageData(PNGBytes.chunk("sRGB", [0]), into: tagged)
        try Data(both).write(to: URL(fileURLWithPath: dir.join("both.png")))
        let r = try kiln(["export", dir.join("both.png"), "-o", dir.join("out"), "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let output = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("out/both.png"))))
        #expect(PNGBytes.data(of: "sRGB", in: output).isEmpty && PNGBytes.data(of: "iCCP", in: output) == PNGBytes.data(of: "iCCP", in: tagged))
        #expect(try pngcheckFailures([dir.join("out/both.png")]) == [])
        let warnings = Events(r.stdoutLines).named("warning").compactMap { $0["message"] as? String }
        #expect(warnings.contains { $0.contains("both.png") && $0.contains("sRGB chunk left out") }, "\(warnings)")
    }

    /// Before: a watermark's values were drawn as they were on an image of other colours: an sRGB logo of
    /// (200, 30, 30) on a Display P3 photo kept those values under the P3 tag, shown about (218, 0, 9). Its colours
    /// are converted into the image's; on an untagged (sRGB) image an untagged mark is drawn as it is.
    @Test func aWatermarkIsDrawnInTheImagesColours() throws {
        let dir = try TemporaryDirectory()
        let input = try displayP3Image(dir)
        let red = [UInt8](repeating: 0, count: 40 * 40 * 4).enumerated().map { [200, 30, 30, 255][$0.offset % 4] }
        try Data(try PNGEncoder.encode(PixelBuffer(width: 40, height: 40, depth: .eight, bytes: red.map(UInt8.init))))
            .write(to: URL(fileURLWithPath: dir.join("logo.png")))
        let mark = ["--watermark", dir.join("logo.png"), "--watermark-position", "center", "--watermark-scale", "0.5",
                    "--device", "cpu", "--progress", "none"]
        let r = try kiln(["export", input, "-o", dir.join("marked")] + mark)
        #expect(r.status == 0, "\(r.stderr)")
        // Shown in sRGB (converted by kiln, checked against vips above), the mark's centre is the logo's red.
        let shown = try kiln(["export", dir.join("marked/p3.png"), "-o", dir.join("shown"), "--profile", "srgb", "--progress", "none"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let image = try PNGDecoder.decode(contentsOf: dir.join("shown/p3.png"))
        let centre = (48 * image.width + 64) * 4
        let pixel = Array(image.bytes[centre..<centre + 3])
        #expect(zip(pixel, [200, 30, 30]).allSatisfy { abs(Int($0) - $1) <= 2 }, "shown \(pixel)")
        // An untagged mark on an untagged image: its values as they are.
        let plain = try kiln(["export", Paths.sampleData + "/rgb8.png", "-o", dir.join("plain")] + mark)
        #expect(plain.status == 0, "\(plain.stderr)")
        let drawn = try PNGDecoder.decode(contentsOf: dir.join("plain/rgb8.png"))
        let middle = (drawn.height / 2 * drawn.width + drawn.width / 2) * 4
        #expect(Array(drawn.bytes[middle..<middle + 3]) == [200, 30, 30])
    }

    /// Before: `--profile FILE` tagged outputs with lcms2's serialization of what it read: another platform and
    /// creator in the header, the tag table moved, and the header's Profile ID no longer that of the bytes.
    @Test func aProfileFileIsEmbeddedByteForByte() throws {
        let dir = try TemporaryDirectory()
        var profile = try displayP3Profile(dir)
        profile.replaceSubrange(40..<44, with: Array("MSFT".utf8))  // primary platform
        profile.replaceSubrange(80..<84, with: Array("kilt".utf8))  // creator
        // Bytes past the size the header says are not the profile's.
        try Data(profile + Array("trailing".utf8)).write(to: URL(fileURLWithPath: dir.join("mine.icc")))
        let r = try kiln(["export", Paths.sampleData + "/rgb8.png", "-o", dir.join("out"), "--profile", dir.join("mine.icc"),
                          "--progress", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        let embedded = try PNGDecoder.decodeWithMetadata(contentsOf: dir.join("out/rgb8.png")).metadata
        #expect(embedded.profileBytes == profile, "the file's bytes")
        let iccp = embedded.chunks.first { $0.type == "iCCP" }?.data ?? []
        #expect(iccp.starts(with: Array("mine\0".utf8)), "named after the file")
    }

    /// Before: `--keep none` dropped the P3 profile and left the pixels as they
    /// were, so every viewer showed other colours, with no word. Now the pixels
    /// are converted to sRGB first (as `--profile srgb` converts them), with a
    /// warning; an sRGB-tagged input is left untouched.
    @Test func droppingANonSRGBProfileConvertsThePixelsToSRGBFirst() throws {
        let dir = try TemporaryDirectory()
        let input = try displayP3Image(dir)
        let dropped = try kiln(["export", input, "-o", dir.join("dropped"), "--keep", "none", "--device", "cpu",
                                "--progress", "json"])
        #expect(dropped.status == 0, "\(dropped.stderr)")
        let converted = try kiln(["export", input, "-o", dir.join("srgb"), "--profile", "srgb", "--device", "cpu",
                                  "--progress", "none"])
        #expect(converted.status == 0, "\(converted.stderr)")
        let output = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("dropped/p3.png"))))
        #expect(PNGBytes.data(of: "iCCP", in: output).isEmpty, "--keep none drops the profile")
        let ours = try PNGDecoder.decode(contentsOf: dir.join("dropped/p3.png"))
        #expect(ours == (try PNGDecoder.decode(contentsOf: dir.join("srgb/p3.png"))), "the same pixels as --profile srgb")
        #expect(ours != (try PNGDecoder.decode(contentsOf: input)), "the pixels were converted")
        let warnings = Events(dropped.stdoutLines).named("warning").compactMap { $0["message"] as? String }
        #expect(warnings.contains { $0.contains("p3.png") && $0.contains("converted") && $0.contains("sRGB") }, "\(warnings)")

        // An sRGB-tagged image looks the same untagged: its pixels are kept as they are, without a word.
        let plain = try kiln(["export", dir.join("srgb/p3.png"), "-o", dir.join("plain"), "--keep", "none",
                              "--device", "cpu", "--progress", "json"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(try PNGDecoder.decode(contentsOf: dir.join("plain/p3.png")) == (try PNGDecoder.decode(contentsOf: dir.join("srgb/p3.png"))))
        #expect(Events(plain.stdoutLines).named("warning").isEmpty, "\(plain.stdout)")
    }

    /// A profile stays with its pixels when they are all neutral. Before: `--profile p3` on gray inputs converted
    /// them, then wrote some gray and untagged (a gray PNG cannot carry an RGB profile), so they looked otherwise;
    /// and such a tagged RGB file with neutral pixels, exported again with no option, came out gray and untagged.
    @Test func aProfileStaysWithNeutralPixels() throws {
        let dir = try TemporaryDirectory()
        let tagged = try kiln(["export", Paths.sampleData, "-o", dir.join("p3"), "--profile", "p3", "--device", "cpu",
                               "--progress", "json"])
        #expect(tagged.status == 0, "\(tagged.stderr)")
        let names = Paths.pngs(in: Paths.sampleData)
        let untagged = names.filter { name in
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: dir.join("p3/" + name)))).map { [UInt8]($0) } ?? []
            return PNGBytes.data(of: "iCCP", in: bytes).isEmpty
        }
        #expect(untagged.isEmpty, "converted into Display P3 but untagged: \(untagged)")
        #expect(Events(tagged.stdoutLines).named("warning").isEmpty, "\(tagged.stdout)")
        // Again, as they are: every one keeps its profile, and its pixels.
        let again = try kiln(["export", dir.join("p3"), "-o", dir.join("again"), "--device", "cpu", "--progress", "json"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(Events(again.stdoutLines).named("warning").isEmpty, "\(again.stdout)")
        for name in ["gray8.png", "gray16.png", "gray-alpha8.png"] {
            let output = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("again/" + name))))
            #expect(PNGBytes.data(of: "iCCP", in: output).count == 1, "\(name): the profile kept")
            #expect(try PNGDecoder.decode(contentsOf: dir.join("again/" + name)) == (try PNGDecoder.decode(contentsOf: dir.join("p3/" + name))),
                    "\(name): the pixels kept")
        }
    }

    /// A gray image converted into sRGB is within a level of sRGB's curve, as a colour one is: lcms2 sampled a gray
    /// pipeline at 33 points, and a linear ramp came out 0, 6, 12, 19 for 0, 1, 2, 3 (sRGB's 0, 13, 22, 28), up to
    /// 10 levels dark in the shadows.
    @Test func aGrayImageConvertsAsExactlyAsAColourOne() throws {
        let dir = try TemporaryDirectory()
        let gamma = PNGBytes.chunk("gAMA", withUnsafeBytes(of: UInt32(100_000).bigEndian) { Array($0) })
        let ramp = PNGBytes.stored(width: 256, colorType: 0, rows: [(0..<256).map { UInt8($0) }])
        try Data(PNGBytes.insertAfterHeader(gamma, into: ramp)).write(to: URL(fileURLWithPath: dir.join("ramp.png")))
        let r = try kiln(["export", dir.join("ramp.png"), "-o", dir.join("out"), "--keep", "none", "--progress", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        let image = try PNGDecoder.decode(contentsOf: dir.join("out/ramp.png"))
        let channels = image.bytes.count / (image.width * image.height)
        let made = (0..<256).map { Int(image.bytes[$0 * channels]) }
        let exact = (0..<256).map { (value: Int) -> Int in
            let linear = Double(value) / 255
            let encoded = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055
            return Int((encoded * 255).rounded())
        }
        let off = zip(made, exact).map { abs($0 - $1) }
        #expect(off.max() ?? 99 <= 1, "levels 0-8: \(made.prefix(9)) for \(exact.prefix(9))")
    }

    /// Colours defined by gAMA and cHRM rather than an ICC profile, where not sRGB's, on a colour image: a profile
    /// is built from them, as browsers read them. Before, kiln converted from ICC profiles only: a JPEG or WebP output
    /// or `--keep none` dropped them and wrote the pixels as they were (a linear image looked far too dark), and
    /// `--profile` converted them as if they were sRGB (128, 64, 32 in linear light stayed 128, 64, 32 in sRGB). Terms
    /// it builds nothing from (cICP; gAMA on a gray image) are said where an output does not keep them, or
    /// `--profile` took the pixels as sRGB. The sRGB values many writers add say nothing.
    @Test func coloursDefinedByChunksAreConvertedOrSaidWhereTheyAreNotKept() throws {
        let dir = try TemporaryDirectory()
        var opaque: [UInt8] = []
        for _ in 0..<16 { opaque += [128, 64, 32, 255] }
        let colour = try PNGEncoder.encode(PixelBuffer(width: 4, height: 4, depth: .eight, bytes: opaque))
        let gray = PNGBytes.stored(width: 4, colorType: 0, rows: [[UInt8]](repeating: [128, 128, 128, 128], count: 4))
        func word(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        func write(_ name: String, _ png: [UInt8], _ chunk: [UInt8]) throws {
            try Data(PNGBytes.insertAfterHeader(chunk, into: png)).write(to: URL(fileURLWithPath: dir.join(name)))
        }
        try write("linear.png", colour, PNGBytes.chunk("gAMA", word(100_000)))
        try write("srgb.png", colour, PNGBytes.chunk("gAMA", word(45_455)))
        try write("gray-linear.png", gray, PNGBytes.chunk("gAMA", word(100_000)))
        // cICP: BT.709's primaries, linear; the same on a gray image; PQ (HDR) and narrow range, which no profile says.
        try write("linear-cicp.png", colour, PNGBytes.chunk("cICP", [1, 8, 0, 1]))
        try write("gray-linear-cicp.png", gray, PNGBytes.chunk("cICP", [1, 8, 0, 1]))
        try write("hdr.png", colour, PNGBytes.chunk("cICP", [9, 16, 0, 1]))
        try write("narrow.png", colour, PNGBytes.chunk("cICP", [1, 13, 0, 0]))
        // cICP comes before an sRGB chunk (PNG third edition): Display P3, not sRGB.
        try Data(PNGBytes.insertAfterHeader(PNGBytes.chunk("sRGB", [0]), into: PNGBytes.insertAfterHeader(
            PNGBytes.chunk("cICP", [12, 13, 0, 1]), into: colour))).write(to: URL(fileURLWithPath: dir.join("p3.png")))
        // Beside an ICC profile: a cICP saying sRGB makes the image sRGB (untagged), an HDR one is said, the profile used.
        let p3Profile = try #require(PNGBytes.data(of: "iCCP", in: [UInt8](try Data(contentsOf: URL(fileURLWithPath:
            try displayP3Image(dir))))).first)
        for (name, cicp) in [("srgb-cicp.png", [UInt8]([1, 13, 0, 1])), ("hdr-icc.png", [9, 16, 0, 1])] {
            try Data(PNGBytes.insertAfterHeader(PNGBytes.chunk("iCCP", p3Profile), into: PNGBytes.insertAfterHeader(
                PNGBytes.chunk("cICP", cicp), into: colour))).write(to: URL(fileURLWithPath: dir.join(name)))
        }
        let hdr = try export("hdr-icc.png", ["--format", "jpeg"])
        #expect(hdr.warnings.count == 1 && hdr.warnings[0].contains("cICP (primaries 9, transfer 16) comes first, and kiln cannot convert from it"),
                "\(hdr.warnings)")
        if ImageTools.has("exiftool") {
            let srgb = try export("srgb-cicp.png", ["--format", "jpeg"])
            #expect(try ImageTools.run("exiftool", ["-s3", "-ProfileDescription", srgb.out + "/srgb-cicp.jpg"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "untagged: sRGB")
            let p3 = try export("p3.png", ["--format", "jpeg"])
            let described = try ImageTools.run("exiftool", ["-s3", "-ProfileDescription", p3.out + "/p3.jpg"]).stdout
            #expect(described.trimmingCharacters(in: .whitespacesAndNewlines) == "PNG cICP (primaries 12, transfer 13)",
                    "\(described)")
        }
        func export(_ input: String, _ options: [String]) throws -> (warnings: [String], out: String) {
            let out = dir.join("out-\(UUID().uuidString)")
            let r = try kiln(["export", dir.join(input), "-o", out, "--device", "cpu", "--progress", "json"] + options)
            #expect(r.status == 0, "\(r.stderr)")
            return (Events(r.stdoutLines).named("warning").map { $0[string: "message"] }, out)
        }
        /// The first pixel's levels: red, green and blue (a gray image's one level, three times).
        func pixel(_ path: String) throws -> [Int] {
            let image = try PNGDecoder.decode(contentsOf: path)
            let channels = image.bytes.count / (image.width * image.height)
            return channels <= 2 ? [Int](repeating: Int(image.bytes[0]), count: 3) : image.bytes.prefix(3).map(Int.init)
        }
        // 128, 64, 32 in linear light are 188, 137, 99 in sRGB (its curve).
        let linearInSRGB = [188, 137, 99]
        let converted = ["linear.png": (linearInSRGB, "gAMA 1"), "linear-cicp.png": (linearInSRGB, "cICP (primaries 1, transfer 8)"),
                         "gray-linear.png": ([188, 188, 188], "gAMA 1"),
                         "gray-linear-cicp.png": ([188, 188, 188], "cICP (primaries 1, transfer 8)")]
        for options in [["--format", "jpeg", "--quality", "100"], ["--format", "webp", "--lossless"], ["--keep", "none"],
                        ["--profile", "srgb"]] {
            for (input, (expected, terms)) in converted.sorted(by: { $0.key < $1.key }) {
                let made = try export(input, options)
                // --keep none says that the built profile, not kept, was converted to sRGB first; a gray image written
                // as WebP (RGB) that it was converted to sRGB and tagged so. Nothing else is said.
                let stem = input.dropLast(4)
                let said = options == ["--keep", "none"] ? "\(terms) left out: --keep does not keep it, so the pixels were "
                    + "converted from what it says to sRGB first"
                    : input.hasPrefix("gray") && options[1] == "webp" ? "\(terms) left out: WebP is RGB, which it cannot describe, so "
                    + "the pixels were converted from what it says to sRGB and tagged sRGB"
                    : nil
                #expect(made.warnings.count == (said == nil ? 0 : 1) && made.warnings.allSatisfy { $0.contains(said ?? "-") },
                        "\(input), \(options): \(made.warnings)")
                let name = try FileManager.default.contentsOfDirectory(atPath: made.out).first { $0.hasPrefix(stem + ".") } ?? "-"
                if options[0] == "--format" {
                    // The output carries the profile: vips, converting by it, gets the colours back.
                    let vips = try ChildProcess("/usr/bin/vips", ["icc_transform", made.out + "/" + name, dir.join("vips.png"), "srgb"])
                        .wait(timeout: .seconds(60))
                    #expect(vips.status == 0, "\(input), \(options): \(vips.stderr)")
                    let got = try pixel(dir.join("vips.png"))
                    #expect(zip(got, expected).allSatisfy { abs($0 - $1) <= 2 }, "\(input), \(options): \(got)")
                } else {
                    let got = try pixel(made.out + "/" + input)
                    #expect(zip(got, expected).allSatisfy { abs($0 - $1) <= 1 }, "\(input), \(options): \(got)")
                }
            }
            for input in ["hdr.png", "narrow.png"] {
                let said = try export(input, options).warnings
                let terms = input == "hdr.png" ? "cICP (primaries 9, transfer 16)" : "cICP (primaries 1, transfer 13, narrow range)"
                #expect(said.count == 1 && said[0].contains("\(terms) left out: kiln cannot convert from these"),
                        "\(input), \(options): \(said)")
            }
            #expect(try export("srgb.png", options).warnings.isEmpty, "\(options)")
        }
        for input in ["linear.png", "gray-linear.png", "linear-cicp.png", "hdr.png"] {
            let kept = try export(input, [])
            #expect(kept.warnings.isEmpty, "a PNG output keeps the chunks: \(kept.warnings)")
            let output = [UInt8](try Data(contentsOf: URL(fileURLWithPath: kept.out + "/" + input)))
            #expect(PNGBytes.data(of: "iCCP", in: output).isEmpty, "\(input): no profile added beside the chunks")
            #expect(try pixel(kept.out + "/" + input) == pixel(dir.join(input)), "\(input): the pixels as they were")
        }
    }

    /// `--input-profile` is for images that say nothing of their colours: one that says sRGB in PNG's own terms (an
    /// sRGB chunk, a cICP of sRGB, a gAMA of sRGB's value) is converted from sRGB. Before, `--input-profile p3`
    /// overrode them, up to 79 levels off. And an RGB iCCP on a gray PNG, which the PNG specification forbids and
    /// libpng drops, is left out with a warning: kept, it made the output RGB and tagged, and a conversion read the
    /// grays through it (64 became 137, where vips keeps 64).
    @Test func chunksSayingSRGBAreNotOverriddenAndAnRGBProfileOnGrayIsLeftOut() throws {
        let dir = try TemporaryDirectory()
        var opaque: [UInt8] = []
        for index in 0..<16 { opaque += [UInt8(200 - 8 * index), 64, UInt8(30 + 10 * index), 255] }
        let colour = try PNGEncoder.encode(PixelBuffer(width: 4, height: 4, depth: .eight, bytes: opaque))
        func word(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        for (name, chunk) in [("chunk.png", PNGBytes.chunk("sRGB", [0])), ("cicp.png", PNGBytes.chunk("cICP", [1, 13, 0, 1])),
                              ("gama.png", PNGBytes.chunk("gAMA", word(45_455))),
                              // sRGB comes before gAMA: a gAMA of 1 beside it is its fallback, not what the image is.
                              ("both.png", PNGBytes.chunk("sRGB", [0]) + PNGBytes.chunk("gAMA", word(100_000)))] {
            try Data(PNGBytes.insertAfterHeader(chunk, into: colour)).write(to: URL(fileURLWithPath: dir.join(name)))
            let r = try kiln(["export", dir.join(name), "-o", dir.join("out"), "--profile", "srgb", "--input-profile", "p3",
                              "--device", "cpu", "--progress", "none"])
            #expect(r.status == 0, "\(r.stderr)")
            let output = try PNGDecoder.decode(contentsOf: dir.join("out/" + name))
            let differences = zip(output.bytes, opaque).map { abs(Int($0) - Int($1)) }
            #expect(differences.max() ?? 99 <= 1, "\(name): converted as if P3, \(differences.max() ?? -1) levels off")
        }
        // The same pixels with no word of their colours are converted from --input-profile: P3's red is redder.
        try Data(colour).write(to: URL(fileURLWithPath: dir.join("plain.png")))
        let plain = try kiln(["export", dir.join("plain.png"), "-o", dir.join("out"), "--profile", "srgb", "--input-profile", "p3",
                              "--device", "cpu", "--progress", "none"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(try PNGDecoder.decode(contentsOf: dir.join("out/plain.png")).bytes[0] > opaque[0] + 10)

        let p3Profile = try #require(PNGBytes.data(of: "iCCP", in: [UInt8](try Data(contentsOf: URL(fileURLWithPath:
            try displayP3Image(dir))))).first)
        let gray = PNGBytes.stored(width: 4, colorType: 0, rows: [[UInt8]](repeating: [64, 64, 128, 128], count: 4))
        try Data(PNGBytes.insertAfterHeader(PNGBytes.chunk("iCCP", p3Profile), into: gray))
            .write(to: URL(fileURLWithPath: dir.join("gray.png")))
        for options in [[], ["--profile", "srgb"]] {
            let out = dir.join("gray-\(options.count)")
            let r = try kiln(["export", dir.join("gray.png"), "-o", out, "--device", "cpu", "--progress", "json"] + options)
            #expect(r.status == 0, "\(r.stderr)")
            let warnings = Events(r.stdoutLines).named("warning").map { $0[string: "message"] }
            #expect(warnings.contains { $0.contains("iCCP: an RGB profile on a gray image") }, "\(options): \(warnings)")
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out + "/gray.png")))
            // Gray as it was; under --profile, RGB tagged sRGB (every output is tagged with the target).
            #expect(PNGBytes.data(of: "IHDR", in: bytes).first?[9] == (options.isEmpty ? 0 : 2), "\(options)")
            #expect(try PNGDecoder.decode(contentsOf: out + "/gray.png").bytes.prefix(4).map(Int.init) == [64, 64, 64, 255],
                    "\(options): the grays as they were")
        }
    }

    /// `--profile` tags every output: a gray source with alpha and a bKGD (PngSuite's bgbn4a08, bggn4a16) was written
    /// gray, its sRGB tag dropped ("iCCP left out: an RGB colour profile cannot describe a gray output"), because gray
    /// kept its bKGD as colour kept the profile, and the encoder counted chunks one for one.
    @Test(arguments: ["bgbn4a08.png", "bggn4a16.png"])
    func aGraySourceWithABackgroundIsTaggedToo(name: String) throws {
        let dir = try TemporaryDirectory()
        let r = try kiln(["export", try Fixtures.pngSuitePath(name), "-o", dir.join("out"), "--profile", "srgb", "--device", "cpu",
                          "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = Events(r.stdoutLines).named("warning").map { $0[string: "message"] }
        #expect(!warnings.contains { $0.contains("iCCP left out") }, "\(warnings)")
        let output = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("out/" + name))))
        #expect(PNGBytes.data(of: "iCCP", in: output).count == 1, "tagged sRGB")
        #expect(PNGBytes.data(of: "IHDR", in: output).first?[9] == 6, "RGBA, which the profile describes")
    }

    /// A profile dropped by `--keep` (its pixels converted to sRGB first) is named by what it calls itself: a JPEG or
    /// WebP gives its profile no name, and the warning said `the ICC profile "ICC profile"`.
    @Test func aDroppedProfileIsNamedByItsDescription() throws {
        // Read wide and written as UTF-8: lcms2's ASCII reading made "Écran gris 2.2" "?cran gris 2.2"; whole (a buffer
        // of 256 wide characters passed as 256 bytes cut a name at 63).
        let long = "Écran gris 2.2, a description longer than sixty-four characters, as some are"
        let named = try TemporaryDirectory()
        let iccp = PNGBytes.chunk("iCCP", Array("gris".utf8) + [0, 0]
                                  + PNGBytes.zlibStored(Self.grayProfile(gamma: 2.2, description: long)))
        try Data(PNGBytes.stored(width: 4, colorType: 0, rows: [[40, 80, 120, 160]], before: iccp))
            .write(to: URL(fileURLWithPath: named.join("g.png")))
        let gray = try kiln(["export", named.join("g.png"), "-o", named.join("out"), "--keep", "none", "--progress", "json"])
        #expect(gray.status == 0, "\(gray.stderr)")
        let said = Events(gray.stdoutLines).named("warning").map { $0[string: "message"] }
        #expect(said.contains { $0.contains("the ICC profile \"\(long)\" is not kept (--keep)") }, "\(said)")
        let dir = try TemporaryDirectory()
        let tagged = try kiln(["export", Paths.sampleData + "/rgb8.png", "-o", dir.join("p3"), "--profile", "p3", "--format", "jpeg",
                               "--progress", "none"])
        #expect(tagged.status == 0, "\(tagged.stderr)")
        let r = try kiln(["export", dir.join("p3/rgb8.jpg"), "-o", dir.join("out"), "--keep", "none", "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = Events(r.stdoutLines).named("warning").map { $0[string: "message"] }
        #expect(warnings.contains { $0.contains("the ICC profile \"Display P3\" is not kept (--keep)") }, "\(warnings)")
    }

    /// An ICC v2 gray display profile of gamma `gamma` (D50 white), built by hand: header, desc, wtpt, kTRC. A
    /// description that is not ASCII is written as a multi-localized Unicode tag (UTF-16), as ICC v4 writes it.
    static func grayProfile(gamma: Double, description: String) -> [UInt8] {
        func word(_ value: Int) -> [UInt8] { PNGBytes.bigEndian(UInt32(truncatingIfNeeded: value)) }
        func padded(_ bytes: [UInt8]) -> [UInt8] { bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4) }
        let d50 = word(0xF6D6) + word(0x10000) + word(0xD32D)
        let text = Array(description.utf8) + [0]
        let utf16 = description.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let desc = description.allSatisfy(\.isASCII)
            ? Array("desc".utf8) + word(0) + word(text.count) + text + word(0) + word(0) + [0, 0, 0]
                + [UInt8](repeating: 0, count: 67)
            : Array("mluc".utf8) + word(0) + word(1) + word(12) + Array("enUS".utf8) + word(utf16.count) + word(28) + utf16
        let wtpt = Array("XYZ ".utf8) + word(0) + d50
        let gammaFixed = Int((gamma * 256).rounded())
        let kTRC = Array("curv".utf8) + word(0) + word(1) + [UInt8(gammaFixed >> 8), UInt8(gammaFixed & 0xFF)]
        let tags: [(String, [UInt8])] = [("desc", padded(desc)), ("wtpt", padded(wtpt)), ("kTRC", padded(kTRC))]
        var table: [UInt8] = [], data: [UInt8] = []
        let start = 128 + 4 + 12 * tags.count
        for (signature, body) in tags {
            table += Array(signature.utf8) + word(start + data.count) + word(body.count)
            data += body
        }
        var header = word(start + data.count) + word(0) + word(0x0210_0000) + Array("mntrGRAYXYZ ".utf8)
        header += [UInt8](repeating: 0, count: 12) + Array("acsp".utf8) + [UInt8](repeating: 0, count: 28) + d50
        header += [UInt8](repeating: 0, count: 128 - header.count)
        return header + word(tags.count) + table + data
    }

    /// A gray profile an output cannot describe (WebP is RGB) is converted from, to sRGB, and the output tagged
    /// sRGB, as a profile dropped by `--keep` is; vips's conversion agrees. Before, the pixels were written as they
    /// were and the profile dropped with a warning: under Gray 2.2, 40 stayed 40 where it shows as 35.
    @Test func aGrayProfileAnOutputCannotCarryIsConvertedFrom() throws {
        let dir = try TemporaryDirectory()
        let profile = Self.grayProfile(gamma: 2.2, description: "Gray 2.2")
        let rows = (0..<8).map { _ in (0..<16).map { UInt8(40 + 4 * $0) } }
        let iccp = PNGBytes.chunk("iCCP", Array("Gray 2.2".utf8) + [0, 0] + PNGBytes.zlibStored(profile))
        try Data(PNGBytes.stored(width: 16, colorType: 0, rows: rows, before: iccp)).write(to: URL(fileURLWithPath: dir.join("g22.png")))
        let vips = try ChildProcess("/usr/bin/vips", ["icc_transform", dir.join("g22.png"), dir.join("vips.png"), "srgb", "--embedded"])
            .wait(timeout: .seconds(60))
        #expect(vips.status == 0, "\(vips.stderr)")
        let reference = try PNGDecoder.decode(contentsOf: dir.join("vips.png"))
        for options in [["--format", "webp", "--lossless"], ["--keep", "none"]] {
            let out = dir.join("out-\(UUID().uuidString)")
            let r = try kiln(["export", dir.join("g22.png"), "-o", out, "--device", "cpu", "--progress", "json"] + options)
            #expect(r.status == 0, "\(r.stderr)")
            let warnings = Events(r.stdoutLines).named("warning").map { $0[string: "message"] }
            #expect(warnings.count == 1 && warnings[0].contains("\"Gray 2.2\"") && warnings[0].contains("sRGB"), "\(warnings)")
            var decoded = out + "/g22.png"
            if options[0] == "--format" {
                try ImageTools.run("dwebp", ["-quiet", out + "/g22.webp", "-o", out + "/decoded.png"])
                decoded = out + "/decoded.png"
            }
            let ours = try PNGDecoder.decode(contentsOf: decoded)
            // The first pixel's level, whatever the layout (gray or RGB): 40 in Gray 2.2 is 35 in sRGB.
            let level = { (image: PixelBuffer) -> Int in Int(image.bytes[0]) }
            #expect(abs(level(ours) - level(reference)) <= 1 && level(reference) < 38, "\(options): \(level(ours)) vs vips \(level(reference))")
        }
        // Converted for a profile --keep drops, gray stays gray: a one-component JPEG (it had three).
        if ImageTools.has("exiftool") {
            let r = try kiln(["export", dir.join("g22.png"), "-o", dir.join("jpeg"), "--format", "jpeg", "--keep", "none",
                              "--device", "cpu", "--progress", "none"])
            #expect(r.status == 0, "\(r.stderr)")
            let components = try ImageTools.run("exiftool", ["-s3", "-ColorComponents", dir.join("jpeg/g22.jpg")]).stdout
            #expect(components.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(components)")
        }
        // A gray profile on colour pixels (a mismatch) converts nothing: from colour rows it would read one channel.
        let colour = try PNGDecoder.decode(contentsOf: Paths.sampleData + "/rgb8.png")
        let tagged = PNGBytes.insertAfterHeader(iccp, into: try PNGEncoder.encode(colour))
        try Data(tagged).write(to: URL(fileURLWithPath: dir.join("rgb.png")))
        for options in [["--keep", "none"], ["--format", "webp", "--lossless"], ["--profile", "srgb"]] {
            let out = dir.join("out-\(UUID().uuidString)")
            let r = try kiln(["export", dir.join("rgb.png"), "-o", out, "--device", "cpu", "--progress", "none"] + options)
            #expect(r.status == 0, "\(r.stderr)")
            var decoded = out + "/rgb.png"
            if options[1] == "webp" {
                try ImageTools.run("dwebp", ["-quiet", out + "/rgb.webp", "-o", out + "/decoded.png"])
                decoded = out + "/decoded.png"
            }
            #expect(try PNGDecoder.decode(contentsOf: decoded).bytes == colour.bytes, "\(options): the colours changed")
        }
    }

    /// A gray profile on pixels a watermark or a JPEG's colour `--background` made colour is neither kept as it is (a gray
    /// profile cannot tag colour) nor left unconverted: an RGB profile with its curve and sRGB's primaries takes its place,
    /// so every output, tagged or converted, shows the grays as the source does. Before, it was dropped with a warning
    /// (tagged outputs), or the pixels converted as if they were sRGB (`--keep none`, `--profile`): 40 stayed 40, not 35.
    @Test func aGrayProfileOnPixelsMadeColourBecomesAnRGBOne() throws {
        let dir = try TemporaryDirectory()
        let profile = Self.grayProfile(gamma: 2.2, description: "Gray 2.2")
        let iccp = PNGBytes.chunk("iCCP", Array("Gray 2.2".utf8) + [0, 0] + PNGBytes.zlibStored(profile))
        let gray = (0..<16).map { _ in [UInt8](repeating: 40, count: 64) }
        try Data(PNGBytes.stored(width: 64, colorType: 0, rows: gray, before: iccp)).write(to: URL(fileURLWithPath: dir.join("g.png")))
        // Gray and alpha: the right half transparent, flattened onto red in a JPEG.
        let grayAlpha = (0..<16).map { _ in (0..<64).flatMap { x in [UInt8(40), UInt8(x < 32 ? 255 : 0)] } }
        try Data(PNGBytes.stored(width: 64, colorType: 4, rows: grayAlpha, before: iccp))
            .write(to: URL(fileURLWithPath: dir.join("ga.png")))
        let watermark = ["--watermark", Paths.sampleData + "/rgb8.png", "--watermark-position", "br", "--watermark-margin", "0"]
        let cases: [(input: String, options: [String], said: String?)] = [
            ("g.png", watermark + ["--format", "jpeg", "--quality", "100"], nil),
            ("g.png", watermark, nil),
            ("g.png", watermark + ["--format", "webp", "--lossless"], nil),
            ("g.png", watermark + ["--keep", "none"], "the ICC profile \"Gray 2.2\" is not kept (--keep)"),
            ("g.png", watermark + ["--profile", "srgb"], nil),
            ("ga.png", ["--format", "jpeg", "--quality", "100", "--background", "#FF0000"], "alpha left out: JPEG has none"),
        ]
        for (input, options, said) in cases {
            let out = dir.join("out-\(UUID().uuidString)")
            let r = try kiln(["export", dir.join(input), "-o", out, "--device", "cpu", "--progress", "json"] + options)
            #expect(r.status == 0, "\(r.stderr)")
            let warnings = Events(r.stdoutLines).named("warning").map { $0[string: "message"] }
            #expect(warnings.count == (said == nil ? 0 : 1) && warnings.allSatisfy { $0.contains(said ?? "-") }, "\(options): \(warnings)")
            let name = try #require(try FileManager.default.contentsOfDirectory(atPath: out).first, "\(options): no output")
            // vips converts by the output's profile (none: taken as sRGB); the top-left pixel, gray 40 under Gray 2.2, is 35.
            let vips = try ChildProcess("/usr/bin/vips", ["icc_transform", out + "/" + name, dir.join("vips.png"), "srgb"])
                .wait(timeout: .seconds(60))
            #expect(vips.status == 0, "\(options): \(vips.stderr)")
            let level = Int(try PNGDecoder.decode(contentsOf: dir.join("vips.png")).bytes[0])
            #expect(abs(level - 35) <= 1, "\(options): \(level), not 35")
        }
    }

    /// lcms2 dates the profiles it builds with the moment it builds them: every output
    /// tagged sRGB or Display P3 differed from the run before in its iCCP (the seconds of
    /// the date), so a resume or a re-run could not make the same file. Now they are dated
    /// 2000-01-01: two runs a second apart write the same bytes.
    @Test func anOutputTaggedWithABuiltInProfileIsTheSameFileInEveryRun() throws {
        let dir = try TemporaryDirectory()
        let input = try displayP3Image(dir)
        for profile in ["srgb", "p3"] {
            var files: [Data] = []
            for run in 0..<2 {
                if run > 0 { Thread.sleep(forTimeInterval: 1.1) }  // into another second of the clock
                let out = dir.join("\(profile)-\(run)")
                let r = try kiln(["export", input, "-o", out, "--profile", profile, "--device", "cpu", "--progress", "none"],
                                 environment: ["SOURCE_DATE_EPOCH": "1700000000"])
                #expect(r.status == 0, "\(r.stderr)")
                files.append(try Data(contentsOf: URL(fileURLWithPath: out + "/p3.png")))
            }
            #expect(files[0] == files[1], "--profile \(profile): two runs wrote different bytes")
        }
    }

    /// The conversion streams with the rows (`ConvertingSink`): an image whose rows pass
    /// the writer's 64 MiB hold is converted within `--memory 64M`. Before, the whole
    /// rendered image was taken for the conversion, and the budget refused it.
    @Test func aLargeConvertedImageStreamsWithinASmallBudget() throws {
        let dir = try TemporaryDirectory()
        let width = 4096, height = 4200  // 68.8 MB of 8-bit RGBA rows
        var bytes = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let at = (y * width + x) * 4
                bytes[at] = UInt8(x & 255)
                bytes[at + 1] = UInt8(y & 255)
                bytes[at + 2] = UInt8((x + y) & 255)
            }
        }
        let image = PixelBuffer(width: width, height: height, depth: .eight, bytes: bytes)
        try Data(try PNGEncoder.encode(image, options: .init(level: 1))).write(to: URL(fileURLWithPath: dir.join("large.png")))
        let r = try kiln(["export", dir.join("large.png"), "-o", dir.join("out"), "--profile", "p3", "--memory", "64M",
                          "--device", "cpu", "--progress", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        let output = try PNGDecoder.decode(contentsOf: dir.join("out/large.png"))
        #expect((output.width, output.height) == (width, height))
        #expect(output != image, "the pixels were converted")
        #expect(try pngcheckFailures([dir.join("out/large.png")]) == [])
    }
}
