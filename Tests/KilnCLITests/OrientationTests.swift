import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// EXIF orientation (issue 24, SPEC §4.1): applied before the operations, the
/// output's EXIF then saying 1 and its true pixel dimensions; `--no-autorotate`
/// keeps pixels and tag as they are.
@Suite struct OrientationTests {
    private static func read(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// Writes `png` as `name` in `dir` and exports it with `extra` on the CPU; returns the run and the output's path.
    private static func export(_ png: [UInt8], in dir: TemporaryDirectory, name: String = "in.png",
                               _ extra: [String] = []) throws -> (ChildProcess.Outcome, String) {
        try Data(png).write(to: URL(fileURLWithPath: dir.join(name)))
        let r = try kiln(["export", dir.join(name), "-o", dir.join("out"), "--device", "cpu", "--progress", "json"] + extra)
        return (r, dir.join("out/\(name)"))
    }

    /// The output's one eXIf chunk, parsed.
    private static func exif(of output: [UInt8]) throws -> Exif {
        let chunks = PNGBytes.data(of: "eXIf", in: output)
        try #require(chunks.count == 1, "eXIf \(chunks.count) times")
        return try #require(Exif(chunks[0]))
    }

    @Test(arguments: 1...8)
    func theOutputShowsWhatAViewerShowsAndSaysOrientationOne(orientation: Int) throws {
        let dir = try TemporaryDirectory()
        let (r, output) = try Self.export(OrientedImages.png(exif: OrientedImages.exif(orientation: orientation,
                                                                                         littleEndian: orientation % 2 == 1)), in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        let pixels = try PNGDecoder.decode(contentsOf: output)
        let size = OrientedImages.displayedSize(orientation: orientation)
        #expect((pixels.width, pixels.height) == (size.width, size.height))
        #expect(pixels.bytes == OrientedImages.displayed(orientation: orientation), "orientation \(orientation)")
        let exif = try Self.exif(of: try Self.read(output))
        #expect(exif.orientation == 1)
        #expect(exif.pixelDimensions.width == pixels.width && exif.pixelDimensions.height == pixels.height)
        if let said = try OrientedImages.exiftoolOrientation(output) {
            #expect(said.split(separator: "\n") == ["1", "\(pixels.width)", "\(pixels.height)"], "exiftool: \(said)")
        }
        #expect(try pngcheckFailures([output]) == [])
    }

    /// Before: `--no-autorotate --strip` wrote the stored pixels without the tag, so the output showed
    /// turned, and nothing said so.
    @Test func anOrientationNeitherAppliedNorKeptIsSaid() throws {
        let png = OrientedImages.png(exif: OrientedImages.exif(orientation: 6, littleEndian: true))
        let dir = try TemporaryDirectory()
        let (stripped, _) = try Self.export(png, in: dir, ["--no-autorotate", "--strip"])
        #expect(stripped.status == 0, "\(stripped.stderr)")
        let said = Events(stripped.stdoutLines).named("warning").compactMap { $0["message"] as? String }
        #expect(said.count == 1 && said[0].contains("EXIF orientation left out: neither applied (--no-autorotate) nor kept"),
                "\(said)")
        // Said once for the job, however many images.
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.join("in"), withIntermediateDirectories: true)
        for name in ["a.png", "b.png"] { try Data(png).write(to: URL(fileURLWithPath: folder.join("in/" + name))) }
        let both = try kiln(["export", folder.join("in"), "-o", folder.join("out"), "--no-autorotate", "--strip",
                             "--device", "cpu", "--progress", "json"])
        #expect(Events(both.stdoutLines).named("warning").count == 1, "\(both.stdout)")
        let kept = try TemporaryDirectory()
        let (tagged, output) = try Self.export(png, in: kept, ["--no-autorotate"])
        #expect(Events(tagged.stdoutLines).named("warning").isEmpty, "\(tagged.stdout)")
        #expect(try Self.exif(of: try Self.read(output)).orientation == 6)
    }

    /// The orientation's turn, `--crop`, `--rotate` and `--flip v` are composed into one remap
    /// of the stored source (`PassBuilder.remap`): the pixels two runs give, the first
    /// turning and cropping, the second rotating and flipping what the first wrote.
    @Test(arguments: [1, 3, 6, 7, 8])
    func orientationCropRotateAndFlipInOneRunGiveWhatTwoRunsGive(orientation: Int) throws {
        let png = OrientedImages.png(exif: OrientedImages.exif(orientation: orientation, littleEndian: true))
        let size = OrientedImages.displayedSize(orientation: orientation)
        let crop = ["--crop", "1,1,\(size.width - 1),\(size.height - 2)"], turn = ["--rotate", "90", "--flip", "v"]
        let oneRun = try TemporaryDirectory()
        let (one, output) = try Self.export(png, in: oneRun, crop + turn)
        #expect(one.status == 0, "\(one.stderr)")
        let twoRuns = try TemporaryDirectory()
        let (first, cropped) = try Self.export(png, in: twoRuns, crop)
        #expect(first.status == 0, "\(first.stderr)")
        let second = try kiln(["export", cropped, "-o", twoRuns.join("turned"), "--device", "cpu", "--progress", "none"] + turn)
        #expect(second.status == 0, "\(second.stderr)")
        let composed = try PNGDecoder.decode(contentsOf: output)
        let stepwise = try PNGDecoder.decode(contentsOf: twoRuns.join("turned/in.png"))
        #expect((composed.width, composed.height) == (size.height - 2, size.width - 1))
        #expect(composed == stepwise, "orientation \(orientation)")
    }

    @Test(arguments: 1...8)
    func noAutorotateKeepsThePixelsAndTheTag(orientation: Int) throws {
        let dir = try TemporaryDirectory()
        let stated = OrientedImages.exif(orientation: orientation, littleEndian: orientation % 2 == 0)
        let (r, output) = try Self.export(OrientedImages.png(exif: stated), in: dir, ["--no-autorotate", "--keep-journal"])
        #expect(r.status == 0, "\(r.stderr)")
        let pixels = try PNGDecoder.decode(contentsOf: output)
        #expect(pixels.bytes == OrientedImages.displayed(orientation: 1))
        // Nothing to correct: the block comes out byte for byte.
        #expect(PNGBytes.data(of: "eXIf", in: try Self.read(output)) == [stated])
        #expect(try pngcheckFailures([output]) == [])
        // Recorded in the job, so a resume keeps it.
        let job = try String(contentsOfFile: dir.join("out/.kiln/job.json"), encoding: .utf8)
        #expect(job.contains("\"autorotate\":false"), "\(job)")
    }

    /// `kiln resume` keeps `--no-autorotate`: an image that failed the first
    /// run (not yet a PNG) and is fixed before the resume is exported unturned.
    @Test func resumeKeepsNoAutorotate() throws {
        let dir = try TemporaryDirectory()
        let png = OrientedImages.png(exif: OrientedImages.exif(orientation: 6, littleEndian: true))
        try Data(png).write(to: URL(fileURLWithPath: dir.join("a.png")))
        try Data("not yet an image".utf8).write(to: URL(fileURLWithPath: dir.join("b.png")))
        let first = try kiln(["export", dir.join("a.png"), dir.join("b.png"), "-o", dir.join("out"), "--device", "cpu",
                              "--no-autorotate", "--progress", "json"])
        #expect(first.status == 1, "\(first.stderr)")
        try Data(png).write(to: URL(fileURLWithPath: dir.join("b.png")))
        let resumed = try kiln(["resume", dir.join("out"), "--progress", "json"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        for name in ["a.png", "b.png"] {
            #expect(try PNGDecoder.decode(contentsOf: dir.join("out/\(name)")).bytes == OrientedImages.displayed(orientation: 1),
                    "\(name)")
            #expect(try Self.exif(of: try Self.read(dir.join("out/\(name)"))).orientation == 6)
        }
    }

    /// A recipe's `output.autorotate: false` is `--no-autorotate`; a recipe without it turns images upright. The
    /// flags override it both ways (`--autorotate` did not exist: a recipe's false could not be turned back on).
    @Test(arguments: [(false, nil), (true, nil), (false, "--autorotate"), (true, "--no-autorotate")] as [(Bool, String?)])
    func aRecipeChoosesAutorotate(recipeSays: Bool, flag: String?) throws {
        let dir = try TemporaryDirectory()
        let recipe = #"{"operations":[],"output":{"autorotate":\#(recipeSays)}}"#
        try recipe.write(toFile: dir.join("recipe.json"), atomically: true, encoding: .utf8)
        let png = OrientedImages.png(exif: OrientedImages.exif(orientation: 6, littleEndian: true))
        let (r, output) = try Self.export(png, in: dir, ["--recipe", dir.join("recipe.json")] + (flag.map { [$0] } ?? []))
        #expect(r.status == 0, "\(r.stderr)")
        let autorotate = flag.map { $0 == "--autorotate" } ?? recipeSays
        let pixels = try PNGDecoder.decode(contentsOf: output)
        #expect(pixels.bytes == OrientedImages.displayed(orientation: autorotate ? 6 : 1))
        #expect(try Self.exif(of: try Self.read(output)).orientation == (autorotate ? 1 : 6))
    }

    /// The resize box applies to the image as displayed: a 6×4 image shown
    /// 4×6 fits 2×3 exactly, where the stored one would make 2×1.
    @Test(arguments: [(6, "2x3", 2, 3), (8, "2x", 2, 3), (5, "x3", 2, 3), (3, "3x", 3, 2)])
    func resizeAppliesToTheDisplayedImage(orientation: Int, box: String, width: Int, height: Int) throws {
        let dir = try TemporaryDirectory()
        let png = OrientedImages.png(exif: OrientedImages.exif(orientation: orientation, littleEndian: false))
        let (r, output) = try Self.export(png, in: dir, ["--resize", box, "--filter", "nearest"])
        #expect(r.status == 0, "\(r.stderr)")
        let pixels = try PNGDecoder.decode(contentsOf: output)
        #expect((pixels.width, pixels.height) == (width, height))
        let exif = try Self.exif(of: try Self.read(output))
        #expect(exif.orientation == 1)
        #expect(exif.pixelDimensions.width == width && exif.pixelDimensions.height == height)
        #expect(try pngcheckFailures([output]) == [])
    }

    /// Damaged or truncated EXIF never crashes a run: the image is exported as stored (orientation 1). A block
    /// with no TIFF header (or a first directory outside it) is left out with a warning, as libpng drops it: copied,
    /// exiftool called every output's EXIF malformed. One whose header holds is carried as it was: nothing in it
    /// can be patched with confidence.
    @Test(arguments: OrientedImages.damagedExif)
    func damagedExifIsOrientationOne(damaged: [UInt8]) throws {
        let dir = try TemporaryDirectory()
        let (r, output) = try Self.export(OrientedImages.png(exif: damaged), in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try PNGDecoder.decode(contentsOf: output).bytes == OrientedImages.displayed(orientation: 1))
        let carried = PNGBytes.data(of: "eXIf", in: try Self.read(output))
        if Exif(damaged) == nil {
            #expect(carried.isEmpty && r.stdout.contains("eXIf: not a TIFF stream"), "\(r.stdout)")
        } else {
            #expect(carried == [damaged])
        }
        #expect(try pngcheckFailures([output]) == [])
    }

    /// A whole IFD0 with a damaged Exif sub-IFD: the orientation is applied
    /// and said to be 1; the dimensions it cannot find are not written.
    @Test(arguments: OrientedImages.damagedExifSubdirectory)
    func aDamagedExifSubdirectoryStillTurnsTheImage(damaged: [UInt8]) throws {
        let dir = try TemporaryDirectory()
        let (r, output) = try Self.export(OrientedImages.png(exif: damaged), in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try PNGDecoder.decode(contentsOf: output).bytes == OrientedImages.displayed(orientation: 6))
        let written = try #require(PNGBytes.data(of: "eXIf", in: try Self.read(output)).first)
        #expect(written.count == damaged.count && Exif(written)?.orientation == 1)
        #expect(try pngcheckFailures([output]) == [])
    }

    /// An eXIf after the image data is known only once the pixels are
    /// rendered: the tag is kept (viewers still show the image upright), with a warning.
    @Test func aLateOrientationIsKeptAsATagWithAWarning() throws {
        let dir = try TemporaryDirectory()
        let (r, output) = try Self.export(OrientedImages.png(exif: OrientedImages.exif(orientation: 6, littleEndian: true),
                                                             late: true), in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try PNGDecoder.decode(contentsOf: output).bytes == OrientedImages.displayed(orientation: 1))
        #expect(try Self.exif(of: try Self.read(output)).orientation == 6)
        let warnings = Events(r.stdoutLines).named("warning").compactMap { $0["message"] as? String }
        #expect(warnings.contains { $0.contains("in.png") && $0.contains("orientation 6") }, "\(warnings)")
        #expect(try pngcheckFailures([output]) == [])
    }

    /// The plan records the choice, not each image's rotation: a second run
    /// over outputs of oriented images finds them the same work.
    @Test func orientedOutputsAreTheSameWorkOnTheNextRun() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        for orientation in 1...8 {
            let png = OrientedImages.png(exif: OrientedImages.exif(orientation: orientation, littleEndian: true))
            try Data(png).write(to: URL(fileURLWithPath: dir.join("in/o\(orientation).png")))
        }
        let arguments = ["export", dir.join("in"), "-o", dir.join("out"), "--device", "cpu", "--progress", "json"]
        let first = try kiln(arguments + ["--keep-journal"])
        #expect(first.status == 0, "\(first.stderr)")
        // The default plan's JSON (and digest) is what it was before autorotate existed.
        let job = try String(contentsOfFile: dir.join("out/.kiln/job.json"), encoding: .utf8)
        #expect(!job.contains("autorotate"))
        let second = try kiln(arguments)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(Events(second.stdoutLines).files("skipped").count == 8)
    }

    /// Before: a watermark stored sideways with orientation 6 (a phone's photo, a logo saved so) was
    /// placed as stored: 100 × 67 where a viewer shows it 100 × 150.
    @Test(.enabled(if: ImageTools.has("convert") && ImageTools.has("exiftool"), "needs ImageMagick and exiftool"))
    func aWatermarkIsPlacedAsAViewerShowsIt() throws {
        let dir = try TemporaryDirectory()
        // Stored 60 × 40, white with a red corner at the stored top left; shown 40 × 60, the corner top right.
        try ImageTools.run("convert", ["-size", "60x40", "xc:white", "-fill", "red", "-draw", "rectangle 0,0 19,9",
                                       "-quality", "100", dir.join("mark.jpg")])
        try ImageTools.run("exiftool", ["-q", "-n", "-overwrite_original", "-Orientation=6", dir.join("mark.jpg")])
        try ImageTools.run("convert", ["-size", "400x400", "xc:black", dir.join("base.png")])
        let r = try kiln(["export", dir.join("base.png"), "-o", dir.join("out"), "--watermark", dir.join("mark.jpg"),
                          "--watermark-scale", "0.25", "--watermark-position", "tl", "--watermark-margin", "0",
                          "--device", "cpu", "--progress", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        let image = try PNGDecoder.decode(contentsOf: dir.join("out/base.png"))
        try #require(image.depth == .eight)
        func sample(_ x: Int, _ y: Int, _ channel: Int) -> Int { Int(image.bytes[(y * image.width + x) * 4 + channel]) }
        var right = 0, bottom = 0
        for y in 0..<image.height { for x in 0..<image.width where sample(x, y, 0) > 128 { right = max(right, x + 1); bottom = max(bottom, y + 1) } }
        #expect(right == 100 && bottom == 150, "the mark covers \(right) × \(bottom)")
        // The red corner, shown top right: red without green there, white at the top left.
        #expect(sample(90, 5, 0) > 200 && sample(90, 5, 1) < 60, "no red at the top right")
        #expect(sample(5, 5, 1) > 200, "the top left is not white")
    }

    /// An orientation applied is said as 1 in XMP too (`tiff:Orientation`, attribute or element form). Before, the
    /// output's EXIF said 1 while its XMP still said 6, and a reader that trusts XMP turned the picture again.
    /// With `--no-autorotate` the XMP stays as it was, as the EXIF does.
    @Test func xmpSaysOrientationOneOnceTheOrientationIsApplied() throws {
        let attribute = #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">"#
            + #"<rdf:Description xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="6"/></rdf:RDF></x:xmpmeta>"#
        let element = attribute.replacingOccurrences(of: #" tiff:Orientation="6"/>"#,
                                                     with: "><tiff:Orientation>6</tiff:Orientation></rdf:Description>")
        for (form, xmp) in [("attribute", attribute), ("element", element)] {
            let itxt = PNGBytes.chunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + Array(xmp.utf8))
            let png = PNGBytes.insertBeforeImageData(itxt, into: OrientedImages.png(exif: OrientedImages.exif(orientation: 6,
                                                                                                             littleEndian: true)))
            for (options, said) in [([String](), "1"), (["--no-autorotate"], "6")] {
                let sub = try TemporaryDirectory()
                let (r, output) = try Self.export(png, in: sub, options)
                #expect(r.status == 0, "\(r.stderr)")
                let bytes = try Self.read(output)
                #expect(try Self.exif(of: bytes).orientation == Int(said), "\(form) \(options)")
                let text = PNGBytes.data(of: "iTXt", in: bytes).map { String(decoding: $0, as: UTF8.self) }
                #expect(text.count == 1 && text[0].contains(form == "attribute" ? #"tiff:Orientation="\#(said)""#
                                                                               : "<tiff:Orientation>\(said)<"),
                        "\(form) \(options): \(text)")
                #expect(text.first?.count == itxt.count - 12, "nothing else of the packet changed")
            }
        }
        // Under the prefix the packet binds to the TIFF namespace, whatever it is: before, `t:Orientation` stayed 6.
        // After a comment, a CDATA section and a quoted `>`, which are text, the attribute is found all the same.
        let prefixed = attribute.replacingOccurrences(of: "xmlns:tiff=", with: "xmlns:t=")
            .replacingOccurrences(of: "tiff:Orientation", with: "t:Orientation")
            .replacingOccurrences(of: "<rdf:Description ", with: #"<!-- <t:Orientation>3</t:Orientation> -->"#
                                  + #"<![CDATA[ t:Orientation="3" ]]><rdf:Description dc:title="x > y" "#)
        let itxt = PNGBytes.chunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + Array(prefixed.utf8))
        let sub = try TemporaryDirectory()
        let (r, output) = try Self.export(PNGBytes.insertBeforeImageData(itxt, into: OrientedImages.png(
            exif: OrientedImages.exif(orientation: 6, littleEndian: true))), in: sub)
        #expect(r.status == 0, "\(r.stderr)")
        let text = PNGBytes.data(of: "iTXt", in: try Self.read(output)).map { String(decoding: $0.dropFirst(22), as: UTF8.self) }
        #expect(text == [prefixed.replacingOccurrences(of: #"t:Orientation="6""#, with: #"t:Orientation="1""#)], "\(text)")
        // The same words in text (an element's, or an attribute's value: it was taken for an attribute), under a prefix
        // not bound to it, or with no EXIF orientation (kiln turned nothing): left alone.
        let quoted = #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">"#
            + #"<rdf:Description xmlns:my="urn:x" my:tiff:Orientation='8' mytiff:Orientation="7" "#
            + #"dc:title="a tiff:Orientation='5' > b"><!-- <tiff:Orientation>4</tiff:Orientation> -->"#
            + #"<dc:rights><![CDATA[<tiff:Orientation>2</tiff:Orientation> tiff:Orientation="2"]]></dc:rights>"#
            + #"<dc:description> tiff:Orientation="3" </dc:description></rdf:Description></rdf:RDF></x:xmpmeta>"#
        let otherTiff = attribute.replacingOccurrences(of: "http://ns.adobe.com/tiff/1.0/", with: "urn:other")
        for (xmp, exif) in [(quoted, OrientedImages.exif(orientation: 6, littleEndian: true)), (attribute, nil),
                            (otherTiff, OrientedImages.exif(orientation: 6, littleEndian: true))] {
            let itxt = PNGBytes.chunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + Array(xmp.utf8))
            let sub = try TemporaryDirectory()
            let (r, output) = try Self.export(PNGBytes.insertBeforeImageData(itxt, into: OrientedImages.png(exif: exif)), in: sub)
            #expect(r.status == 0, "\(r.stderr)")
            let text = PNGBytes.data(of: "iTXt", in: try Self.read(output)).map { String(decoding: $0.dropFirst(22), as: UTF8.self) }
            #expect(text == [xmp], "\(text)")
        }
    }

    /// An EXIF orientation outside 1–8 (0, 9, 65535) turns nothing, and the output says 1, as docs/recipes.md
    /// promises. Before, the invalid value was copied as it was.
    @Test(arguments: [0, 9, 65535])
    func anOrientationOutsideOneToEightTurnsNothingAndBecomesOne(value: Int) throws {
        let dir = try TemporaryDirectory()
        let (r, output) = try Self.export(OrientedImages.png(exif: OrientedImages.exif(orientation: value, littleEndian: false)),
                                          in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        let pixels = try PNGDecoder.decode(contentsOf: output)
        #expect(pixels.bytes == OrientedImages.displayed(orientation: 1))
        let exif = try Self.exif(of: try Self.read(output))
        #expect(exif.orientation == 1)
    }
}
