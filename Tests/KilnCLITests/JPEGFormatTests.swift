@testable import Export
import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// JPEG in and out (issue 27), through the CLI, checked with decoders that
/// are not Kiln's (ImageMagick, exiftool, libvips).
@Suite struct JPEGFormatTests {
    static let tools = ImageTools.has("convert") && ImageTools.has("compare") && ImageTools.has("identify")

    /// A 400×300 photo-like JPEG (ImageMagick's plasma, seeded) at `quality`, with `extra` arguments before the output.
    static func makeJPEG(_ path: String, width: Int = 400, height: Int = 300, quality: Int = 95,
                         extra: [String] = []) throws {
        try ImageTools.run("convert", ["-seed", "27", "-size", "\(width)x\(height)", "plasma:fractal", "-blur", "0x1",
                                       "-quality", "\(quality)"] + extra + [path])
    }

    private func export(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess.Outcome {
        try kiln(["export"] + arguments + ["--device", "cpu", "--progress", "json"], environment: environment)
    }

    /// A progressive JPEG is read whole before its first row, libjpeg holding every coefficient: the memory budget
    /// counts them, and that reading is heard as progress. Before, the reading was done while the image was only being
    /// planned, uncounted (a progressive photo held 2 to 9 × `--memory`; 1.8 GB under 200M for 300 MPix), and showed
    /// no progress (3.5 s of a 6.7 s export: the watchdog stopped it under `--stall-timeout 2`).
    @Test(.enabled(if: tools, "needs ImageMagick"))
    func aProgressiveJPEGsCoefficientsAreCountedAndItsFirstReadIsProgress() throws {
        let dir = try TemporaryDirectory()
        // 3000 × 2000 at quality 95 (4:4:4): 3 components of 375 × 250 blocks of 128 bytes, 36 MB.
        try Self.makeJPEG(dir.join("base.jpg"), width: 3000, height: 2000)
        try Self.makeJPEG(dir.join("prog.jpg"), width: 3000, height: 2000, extra: ["-interlace", "Plane"])
        let progressive = try ImageCodecs.header(contentsOf: dir.join("prog.jpg"))
        #expect(progressive.readsFileFirst && progressive.heldInputBytes == 3 * 375 * 250 * 128, "\(progressive)")
        let baseline = try ImageCodecs.header(contentsOf: dir.join("base.jpg"))
        #expect(!baseline.readsFileFirst && baseline.heldInputBytes == 0, "\(baseline)")
        // The first row comes once every scan is read: heard rising to the file's end; a baseline file says nothing.
        for (name, reads) in [("prog.jpg", true), ("base.jpg", false)] {
            let reader = try ImageCodecs.reader(path: dir.join(name), bytes: nil, limits: DecodingLimits())
            var fractions: [Double] = []
            reader.observeFirstRead { fractions.append($0) }
            var row = [UInt8](repeating: 0, count: 3000 * 4)
            try row.withUnsafeMutableBytes { try reader.read(0..<1, into: $0.baseAddress!) }
            if reads {
                #expect(fractions.count >= 20 && fractions == fractions.sorted() && (fractions.last ?? 0) > 0.95,
                        "\(fractions.count) heard, the last \(fractions.last ?? 0)")
            } else {
                #expect(fractions.isEmpty, "\(fractions)")
            }
        }
        // The device lost at its first submission: the CPU reads the photo again, the first reader's coefficients
        // given back first, and writes what a CPU export writes.
        if VulkanAvailability.current.vulkanDevice != nil {
            for (folder, device, environment) in [("cpu", "cpu", [String: String]()), ("lost", "vulkan", ["KILN_FAULT_DEVICE_LOST_AT": "1"])] {
                let r = try kiln(["export", dir.join("prog.jpg"), "-o", dir.join(folder), "--blur", "2", "--device", device,
                                  "--progress", "json"], environment: environment)
                #expect(r.status == 0, "\(folder): \(r.stderr)")
            }
            #expect(FileManager.default.contentsEqual(atPath: dir.join("cpu/prog.jpg"), andPath: dir.join("lost/prog.jpg")))
        }
        // A budget that streams the baseline photo (about 22 MB beside kiln's own) cannot hold the other's 36 MB more.
        for (name, written) in [("base.jpg", true), ("prog.jpg", false)] {
            let r = try export([dir.join(name), "-o", dir.join("out-" + name), "--memory", "60M"])
            let file = Events(r.stdoutLines).files(written ? "written" : "failed")
            #expect(file.count == 1 && r.status == (written ? 0 : 1), "\(name): \(r.stdout) \(r.stderr)")
            if !written {
                let error = file.first?["error"] as? String ?? ""
                #expect(error.contains("more than --memory 60 MB"), "\(file)")
            }
        }
    }

    @Test(.enabled(if: tools, "needs ImageMagick"))
    func aJPEGRoundTripKeepsItsSizeAndLooks() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        try Self.makeJPEG(dir.join("in/photo.jpg"))
        try Self.makeJPEG(dir.join("in/progressive.jpg"), extra: ["-interlace", "Plane"])
        try Self.makeJPEG(dir.join("in/gray.jpeg"), extra: ["-colorspace", "Gray"])
        try Self.makeJPEG(dir.join("in/restarts.jpg"), extra: ["-define", "jpeg:restart-interval=2"])
        let r = try export([dir.join("in"), "-o", dir.join("out")])
        #expect(r.status == 0, "\(r.stderr)")
        for (input, output) in [("photo.jpg", "photo.jpg"), ("progressive.jpg", "progressive.jpg"), ("gray.jpeg", "gray.jpg"),
                                ("restarts.jpg", "restarts.jpg")] {
            #expect(try ImageTools.identify(dir.join("out/" + output)) == "400 300 JPEG")
            let psnr = try ImageTools.psnr(dir.join("in/" + input), dir.join("out/" + output))
            #expect(psnr >= 36, "\(input): \(psnr) dB")
        }
        // To PNG: libjpeg's decode, the one ImageMagick makes.
        let png = try export([dir.join("in"), "-o", dir.join("png"), "--format", "png"])
        #expect(png.status == 0, "\(png.stderr)")
        for name in ["photo", "progressive", "gray", "restarts"] {
            let input = dir.join("in/" + name + (name == "gray" ? ".jpeg" : ".jpg"))
            let psnr = try ImageTools.psnr(input, dir.join("png/\(name).png"))
            #expect(psnr >= 50, "\(name): \(psnr) dB")
        }
    }

    @Test(.enabled(if: tools, "needs ImageMagick"))
    func qualityProgressiveAndSubsamplingAreWritten() throws {
        let dir = try TemporaryDirectory()
        try Self.makeJPEG(dir.join("photo.jpg"))
        func exportAs(_ name: String, _ options: [String]) throws -> String {
            let r = try export([dir.join("photo.jpg"), "-o", dir.join(name)] + options)
            #expect(r.status == 0, "\(r.stderr)")
            return dir.join(name + "/photo.jpg")
        }
        let standard = try exportAs("default", [])
        #expect(try ImageTools.identify(standard, "%Q %[jpeg:sampling-factor] %[interlace]") == "85 2x2,1x1,1x1 None")
        let high = try exportAs("high", ["--quality", "95"])
        #expect(try ImageTools.identify(high, "%Q %[jpeg:sampling-factor]") == "95 1x1,1x1,1x1")
        let chosen = try exportAs("chosen", ["--quality", "95", "--subsample", "420", "--progressive"])
        #expect(try ImageTools.identify(chosen, "%Q %[jpeg:sampling-factor] %[interlace]") == "95 2x2,1x1,1x1 JPEG")
        let bad = try export([dir.join("photo.jpg"), "-o", dir.join("bad"), "--quality", "0"])
        #expect(bad.status == 64, "\(bad.stderr)")
    }

    /// Must-show 4: each EXIF orientation of a JPEG is applied as `vips autorot` applies it; the output
    /// says orientation 1; `--no-autorotate` keeps the stored pixels and the tag.
    @Test(.enabled(if: tools && ImageTools.has("exiftool") && ImageTools.has("vips"), "needs ImageMagick, exiftool and vips"),
          arguments: 1...8)
    func eachOrientationMatchesVipsAutorot(orientation: Int) throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        let input = dir.join("in/photo.jpg")
        try Self.makeJPEG(input, width: 96, height: 64)
        try ImageTools.run("exiftool", ["-q", "-n", "-overwrite_original", "-Orientation=\(orientation)", input])
        try ImageTools.run("vips", ["autorot", input, dir.join("upright.png")])

        let png = try export([input, "-o", dir.join("png"), "--format", "png"])
        #expect(png.status == 0, "\(png.stderr)")
        let psnr = try ImageTools.psnr(dir.join("upright.png"), dir.join("png/photo.png"))
        #expect(psnr >= 45, "orientation \(orientation): \(psnr) dB against vips autorot")

        let jpeg = try export([input, "-o", dir.join("jpeg")])
        #expect(jpeg.status == 0, "\(jpeg.stderr)")
        let upright = try ImageTools.run("exiftool", ["-s3", "-n", "-Orientation", dir.join("jpeg/photo.jpg")]).stdout
        #expect(upright.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        #expect(try ImageTools.psnr(dir.join("upright.png"), dir.join("jpeg/photo.jpg")) >= 35)
        let size = orientation >= 5 ? "64 96 JPEG" : "96 64 JPEG"
        #expect(try ImageTools.identify(dir.join("jpeg/photo.jpg")) == size)

        let kept = try export([input, "-o", dir.join("kept"), "--no-autorotate", "--format", "png"])
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(try ImageTools.psnr(input, dir.join("kept/photo.png")) >= 50, "the stored pixels")
        let tag = try ImageTools.run("exiftool", ["-s3", "-n", "-Orientation", dir.join("kept/photo.png")]).stdout
        #expect(tag.trimmingCharacters(in: .whitespacesAndNewlines) == "\(orientation)")
    }

    /// Must-show 5: truncated, bit-flipped and header-only JPEGs each fail alone, named, with the
    /// reason, exit 1, no output; the good JPEG beside them is written.
    @Test(.enabled(if: tools, "needs ImageMagick"))
    func damagedJPEGsFailAloneAndTheGoodOneIsWritten() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        try Self.makeJPEG(dir.join("in/good.jpg"))
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir.join("in/good.jpg"))))
        // The first scan's start (SOS): what comes after it is entropy-coded data.
        let scan = (0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }!
        var damaged: [String: [UInt8]] = [
            "cut10.jpg": Array(bytes.prefix(bytes.count / 10)),
            "cut50.jpg": Array(bytes.prefix(bytes.count / 2)),
            "cut90.jpg": Array(bytes.prefix(bytes.count * 9 / 10)),
            "header.jpg": Array(bytes.prefix(scan)),
        ]
        var flipped = bytes
        for index in stride(from: scan + 64, to: bytes.count - 16, by: 211) { flipped[index] ^= 0x24 }
        damaged["flipped.jpg"] = flipped
        for (name, data) in damaged { try Data(data).write(to: URL(fileURLWithPath: dir.join("in/" + name))) }

        let r = try export([dir.join("in"), "-o", dir.join("out")])
        #expect(r.status == 1, "\(r.stderr)")
        let events = Events(r.stdoutLines)
        #expect(events.files("written").map { $0[string: "output"] } == [dir.join("out/good.jpg")])
        let failed = Dictionary(uniqueKeysWithValues: events.files("failed").map { ($0[string: "input"], $0[string: "error"]) })
        #expect(failed.count == 5, "\(failed)")
        for name in ["cut10.jpg", "cut50.jpg", "cut90.jpg", "header.jpg"] {
            #expect(failed[dir.join("in/" + name)]?.contains("truncated JPEG: Premature end of JPEG file") == true,
                    "\(name): \(failed[dir.join("in/" + name)] ?? "not failed")")
        }
        #expect(failed[dir.join("in/flipped.jpg")]?.contains("corrupt JPEG") == true, "\(failed)")
        // In words too, each line naming its file.
        let text = try kiln(["export", dir.join("in"), "-o", dir.join("text"), "--device", "cpu", "--progress", "none"])
        #expect(text.status == 1)
        for name in damaged.keys { #expect(text.stderr.contains(dir.join("in/" + name) + ": "), "\(name) is named") }
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.join("out")).filter { $0 != ".kiln" }
        #expect(left == ["good.jpg"], "no output of a damaged input, no temporary file: \(left)")
    }

    /// `--format jpg` and `JPEG`, and a recipe's `"jpg"`, name JPEG (as sharp, vips and ImageMagick take them, and as
    /// the outputs are named): they were refused, exit 64 ("the value 'jpg' is invalid").
    @Test(.enabled(if: tools, "needs ImageMagick")) func jpgAndAnyCaseNameJPEG() throws {
        let dir = try TemporaryDirectory()
        try Data(#"{"output": {"format": "jpg"}}"#.utf8).write(to: URL(fileURLWithPath: dir.join("r.json")))
        for (name, options) in [("jpg", ["--format", "jpg"]), ("upper", ["--format", "JPEG"]), ("recipe", ["--recipe", dir.join("r.json")])] {
            let r = try export([Paths.sampleData + "/rgb8.png", "-o", dir.join(name)] + options)
            #expect(r.status == 0, "\(name): \(r.stderr)")
            #expect(try ImageTools.identify(dir.join(name + "/rgb8.jpg"), "%m") == "JPEG", "\(name)")
        }
    }

    /// A bad Huffman code fails the image however the file is read: kiln reads a file under 1 MiB whole, where
    /// libjpeg-turbo's fast path decoded the bad code as 0 without a word (written, exit 0; in place, over the original),
    /// and streams a larger one, which failed. The same damage, padded past 1 MiB by APP15 segments, must fail alike.
    @Test func aBadHuffmanCodeFailsTheImageReadWholeOrStreamed() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: try Fixtures.damagedJPEG())))
        let segment: [UInt8] = [0xFF, 0xEF, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 65533)
        let padded = Array(bytes.prefix(2)) + Array([[UInt8]](repeating: segment, count: 17).joined()) + bytes.dropFirst(2)
        #expect(bytes.count < 1 << 20 && padded.count > 1 << 20)
        try Data(bytes).write(to: URL(fileURLWithPath: dir.join("in/whole.jpg")))
        try Data(padded).write(to: URL(fileURLWithPath: dir.join("in/streamed.jpg")))
        let r = try export([dir.join("in"), "-o", dir.join("out")])
        #expect(r.status == 1, "\(r.stderr)")
        let failed = Dictionary(uniqueKeysWithValues: Events(r.stdoutLines).files("failed").map { ($0[string: "input"], $0[string: "error"]) })
        for name in ["whole.jpg", "streamed.jpg"] {
            #expect(failed[dir.join("in/" + name)]?.contains("corrupt JPEG: Corrupt JPEG data: bad Huffman code") == true,
                    "\(name): \(failed[dir.join("in/" + name)] ?? "not failed")")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.join("out")).filter { $0 != ".kiln" }
        #expect(left == [], "no output: \(left)")
    }

    /// Must-show 6 (first half): a PNG's transparent pixels come out as the background, said once a job.
    @Test(.enabled(if: tools, "needs ImageMagick"))
    func alphaIsFlattenedOntoTheBackground() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        for name in ["a", "b"] {
            // Left half transparent, right half opaque red.
            try ImageTools.run("convert", ["-size", "32x16", "xc:none", "-fill", "red", "-draw", "rectangle 16,0 31,15",
                                           "PNG32:" + dir.join("in/\(name).png")])
        }
        let white = try export([dir.join("in"), "-o", dir.join("white"), "--format", "jpeg"])
        #expect(white.status == 0, "\(white.stderr)")
        let notes = Events(white.stdoutLines).named("warning").filter {
            $0[string: "message"].contains("flattened onto the background #FFFFFF")
        }
        #expect(notes.count == 1, "said once a job: \(white.stdout)")
        #expect(try ImageTools.pixel(dir.join("white/a.jpg"), 2, 8).allSatisfy { $0 >= 250 })
        let red = try ImageTools.pixel(dir.join("white/a.jpg"), 28, 8)
        #expect(red[0] >= 240 && red[1] <= 12 && red[2] <= 12, "\(red)")

        let blue = try export([dir.join("in"), "-o", dir.join("blue"), "--format", "jpeg", "--background", "#0000ff"])
        #expect(blue.status == 0, "\(blue.stderr)")
        let pixel = try ImageTools.pixel(dir.join("blue/b.jpg"), 2, 8)
        #expect(pixel[0] <= 12 && pixel[1] <= 12 && pixel[2] >= 240, "\(pixel)")
        #expect(try export([dir.join("in"), "-o", dir.join("bad"), "--background", "blueish"]).status == 64)
    }

    /// Must-show 6 (second half): a CMYK JPEG with an embedded profile (libvips writes it, Adobe-inverted)
    /// converts to sRGB within 40 dB of libvips' `icc_import --embedded` + `icc_export srgb`; one without a
    /// profile (ImageMagick's) is converted naively, with a warning.
    @Test(.enabled(if: tools && ImageTools.has("vips"), "needs ImageMagick and vips"))
    func cmykConvertsToSRGB() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        try ImageTools.run("convert", ["-seed", "3", "-size", "200x150", "plasma:", "-blur", "0x1", "-depth", "8",
                                       "PNG24:" + dir.join("rgb.png")])
        try ImageTools.run("vips", ["icc_export", dir.join("rgb.png"), dir.join("in/profiled.jpg"), "--output-profile", "cmyk"])
        try ImageTools.run("convert", [dir.join("rgb.png"), "-colorspace", "CMYK", dir.join("in/bare.jpg")])
        try ImageTools.run("vips", ["icc_import", dir.join("in/profiled.jpg"), dir.join("lab.v"), "--embedded"])
        try ImageTools.run("vips", ["icc_export", dir.join("lab.v"), dir.join("reference.png"), "--output-profile", "srgb"])
        let r = try export([dir.join("in"), "-o", dir.join("out"), "--format", "png"])
        #expect(r.status == 0, "\(r.stderr)")
        let psnr = try ImageTools.psnr(dir.join("reference.png"), dir.join("out/profiled.png"))
        #expect(psnr >= 40, "\(psnr) dB against libvips")
        #expect(try ImageTools.psnr(dir.join("rgb.png"), dir.join("out/bare.png")) >= 30)
        let warnings = Events(r.stdoutLines).named("warning").map { $0[string: "message"] }
        #expect(warnings.contains { $0.contains("bare.jpg: a CMYK image without a colour profile was converted to sRGB naively") },
                "\(warnings)")
    }

    /// A CMYK JPEG whose Adobe APP14 marker a metadata tool removed is read inverted, as with it (libvips 8.14
    /// and ImageMagick read it so): it came out a near-negative, 6 dB from the marked one's reading, with no word.
    @Test(.enabled(if: tools && ImageTools.has("vips"), "needs ImageMagick and vips"))
    func aCMYKJPEGWithoutItsAdobeMarkerIsReadInverted() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        try ImageTools.run("convert", ["-seed", "7", "-size", "96x64", "plasma:", "-depth", "8", "PNG24:" + dir.join("rgb.png")])
        try ImageTools.run("vips", ["icc_export", dir.join("rgb.png"), dir.join("in/marked.jpg"), "--output-profile", "cmyk"])
        // The same file less its APP14 segment (FF EE): the segments before the scan are walked by their lengths.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("in/marked.jpg"))))
        var at = 2, removed = 0
        while at + 4 <= bytes.count, bytes[at] == 0xFF, bytes[at + 1] != 0xDA {
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            if bytes[at + 1] == 0xEE {
                bytes.removeSubrange(at..<at + 2 + length)
                removed += 1
            } else {
                at += 2 + length
            }
        }
        #expect(removed == 1, "vips wrote one Adobe marker")
        try Data(bytes).write(to: URL(fileURLWithPath: dir.join("in/unmarked.jpg")))
        let r = try export([dir.join("in"), "-o", dir.join("out"), "--format", "png"])
        #expect(r.status == 0, "\(r.stderr)")
        let psnr = try ImageTools.psnr(dir.join("out/marked.png"), dir.join("out/unmarked.png"))
        #expect(psnr >= 60, "\(psnr) dB between the two readings")
    }

    /// Under `--profile`, a CMYK JPEG converts straight into the target with its intent. It went to sRGB first: in
    /// Display P3, pure cyan ink came out 69,154,222 (sRGB's clipped cyan), where vips' direct conversion gives
    /// 0,152,222, and every `--intent` gave the same bytes.
    @Test(.enabled(if: ImageTools.has("vips"), "needs vips to write a CMYK JPEG with a profile"))
    func aCMYKJPEGConvertsStraightIntoTheTarget() throws {
        let dir = try TemporaryDirectory()
        try ImageTools.run("vips", ["black", dir.join("c.v"), "32", "16", "--bands", "4"])
        try ImageTools.run("vips", ["linear", dir.join("c.v"), dir.join("ink.v"), "0 0 0 0", "255 0 0 0", "--uchar"])
        try ImageTools.run("vips", ["copy", dir.join("ink.v"), dir.join("cmyk.v"), "--interpretation", "cmyk"])
        try ImageTools.run("vips", ["jpegsave", dir.join("cmyk.v"), dir.join("cyan.jpg"), "--profile", "cmyk"])
        var pixels: [String: [Int]] = [:]
        for intent in ["relative", "absolute"] {
            let r = try export([dir.join("cyan.jpg"), "-o", dir.join(intent), "--format", "png", "--profile", "p3",
                                "--intent", intent])
            #expect(r.status == 0, "\(r.stderr)")
            pixels[intent] = try ImageTools.pixel(dir.join(intent + "/cyan.png"), 5, 5)
        }
        #expect(pixels["relative"]![0] <= 8 && pixels["relative"]![2] >= 210, "P3's cyan, not sRGB's: \(pixels)")
        #expect(pixels["relative"] != pixels["absolute"], "the intent reaches the CMYK step: \(pixels)")
    }

    /// Gray rows make a one-component JPEG, as vips writes one (a third of the coefficients; before, every JPEG had
    /// three): a gray source, a gray source with alpha flattened onto a gray background, and `--grayscale`. Alpha
    /// flattened onto a coloured background makes colour, so three.
    @Test(.enabled(if: tools && ImageTools.has("exiftool"), "needs ImageMagick and exiftool"))
    func grayRowsMakeAOneComponentJPEG() throws {
        let dir = try TemporaryDirectory()
        func components(_ input: String, _ options: [String]) throws -> String {
            let out = dir.join("out-\(UUID().uuidString)")
            let r = try export([Paths.sampleData + "/" + input, "-o", out, "--format", "jpeg"] + options)
            #expect(r.status == 0, "\(r.stderr)")
            let name = input.replacingOccurrences(of: ".png", with: ".jpg")
            return try ImageTools.run("exiftool", ["-s3", "-ColorComponents", out + "/" + name]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try components("gray8.png", []) == "1")
        #expect(try components("gray16.png", []) == "1")
        #expect(try components("gray-alpha8.png", []) == "1")
        #expect(try components("gray-alpha8.png", ["--background", "#808080"]) == "1")
        #expect(try components("gray-alpha8.png", ["--background", "#ff0000"]) == "3")
        #expect(try components("rgb8.png", []) == "3")
        #expect(try components("rgb8.png", ["--grayscale"]) == "1")
        // One component sampled 1×1 (below quality 90, 4:2:0 is the default): 2×2 made tools call it 4:2:0.
        let sampled = dir.join("sampled")
        #expect(try export([Paths.sampleData + "/gray8.png", "-o", sampled, "--format", "jpeg"]).status == 0)
        #expect(try ImageTools.identify(sampled + "/gray8.jpg", "%[jpeg:sampling-factor]") == "1x1")
        // The pixels are the gray source's, within what JPEG's quantisation costs.
        let out = dir.join("gray")
        #expect(try export([Paths.sampleData + "/gray8.png", "-o", out, "--format", "jpeg", "--quality", "95"]).status == 0)
        let psnr = try ImageTools.psnr(Paths.sampleData + "/gray8.png", out + "/gray8.jpg")
        #expect(psnr >= 35, "\(psnr) dB")
    }

    /// IPTC (APP13's Photoshop resources: caption, keywords, copyright) comes through into JPEG outputs; PNG and
    /// WebP outputs, with no place for it, say they left it out; `--strip` drops it. Before, it was dropped
    /// silently from every output (libjpeg was not asked to keep APP13).
    @Test(.enabled(if: tools && ImageTools.has("exiftool"), "needs ImageMagick and exiftool"))
    func iptcStaysInJPEGOutputsAndIsSaidWhereItCannot() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        let input = dir.join("in/captioned.jpg")
        try Self.makeJPEG(input)
        try ImageTools.run("exiftool", ["-q", "-overwrite_original", "-IPTC:CopyrightNotice=(c) Jane",
                                        "-IPTC:Caption-Abstract=Caption here", "-IPTC:Keywords=kiln", input])
        func iptc(_ path: String) throws -> [String] {
            try ImageTools.run("exiftool", ["-s3", "-f", "-CopyrightNotice", "-Caption-Abstract", "-Keywords", path]).stdout
                .split(separator: "\n").map(String.init)
        }
        #expect(try iptc(input) == ["(c) Jane", "Caption here", "kiln"])
        let kept = try export([dir.join("in"), "-o", dir.join("jpeg"), "--resize", "200x"])
        #expect(kept.status == 0 && Events(kept.stdoutLines).named("warning").isEmpty, "\(kept.stdout)")
        #expect(try iptc(dir.join("jpeg/captioned.jpg")) == ["(c) Jane", "Caption here", "kiln"])
        #expect(try ImageTools.run("exiftool", ["-validate", "-s3", dir.join("jpeg/captioned.jpg")]).stdout.hasPrefix("OK"))
        for format in ["png", "webp"] {
            let r = try export([dir.join("in"), "-o", dir.join(format), "--format", format])
            #expect(r.status == 0, "\(r.stderr)")
            let warnings = Events(r.stdoutLines).named("warning").map { $0[string: "message"] }
            #expect(warnings.contains { $0.contains("IPTC left out: \(format == "png" ? "PNG" : "WebP") has no place for it") },
                    "\(format): \(warnings)")
        }
        let stripped = try export([dir.join("in"), "-o", dir.join("stripped"), "--strip"])
        #expect(stripped.status == 0 && Events(stripped.stdoutLines).named("warning").isEmpty, "\(stripped.stdout)")
        #expect(try iptc(dir.join("stripped/captioned.jpg")) == ["-", "-", "-"])
    }

    /// Photoshop resources past a segment's 64 KiB continue over several APP13 segments: read joined and written
    /// split again, whole (only the first was read, so the output's block was cut short, silently).
    @Test(.enabled(if: tools, "needs ImageMagick"))
    func photoshopResourcesOverSeveralSegmentsComeThroughWhole() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        try Self.makeJPEG(dir.join("plain.jpg"))
        // One private resource of 100,000 bytes: "8BIM", id, empty name (padded), size, data.
        let payload = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let resources = Array("8BIM".utf8) + [0x0F, 0xA0, 0, 0] + [0x00, 0x01, 0x86, 0xA0] + payload
        let signature = Array("Photoshop 3.0".utf8) + [0]
        var segments: [UInt8] = []
        for start in stride(from: 0, to: resources.count, by: 60_000) {
            let data = signature + resources[start..<min(resources.count, start + 60_000)]
            segments += [0xFF, 0xED, UInt8((data.count + 2) >> 8), UInt8((data.count + 2) & 0xFF)] + data
        }
        let plain = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("plain.jpg"))))
        try Data(plain.prefix(2) + segments + plain.dropFirst(2)).write(to: URL(fileURLWithPath: dir.join("in/big.jpg")))
        /// The APP13 payloads after their signature, joined, of the JPEG at `path`.
        func photoshop(_ path: String) throws -> [UInt8] {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            var joined: [UInt8] = [], at = 2
            while at + 4 <= bytes.count, bytes[at] == 0xFF, bytes[at + 1] != 0xDA {
                let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
                let data = bytes[(at + 4)..<(at + 2 + length)]
                if bytes[at + 1] == 0xED, data.starts(with: signature) { joined += data.dropFirst(signature.count) }
                at += 2 + length
            }
            return joined
        }
        #expect(try photoshop(dir.join("in/big.jpg")) == resources)
        let r = try export([dir.join("in"), "-o", dir.join("out")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try photoshop(dir.join("out/big.jpg")) == resources)
    }

    /// ICC (APP2), EXIF (APP1) and XMP come through into JPEG and WebP outputs; `--strip` keeps only the ICC.
    @Test(.enabled(if: tools && ImageTools.has("exiftool") && ImageTools.has("vips"), "needs ImageMagick, exiftool and vips"))
    func iccExifAndXMPAreWrittenBackUnlessStripped() throws {
        let dir = try TemporaryDirectory()
        try Self.makeJPEG(dir.join("plain.jpg"))
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        let input = dir.join("in/tagged.jpg")
        try ImageTools.run("vips", ["icc_export", dir.join("plain.jpg"), input, "--output-profile", "srgb"])
        try ImageTools.run("exiftool", ["-q", "-overwrite_original", "-Artist=Kiln Test", "-XMP-dc:Title=Round trip", input])
        func tags(_ path: String) throws -> [String] {
            try ImageTools.run("exiftool", ["-s3", "-f", "-Artist", "-Title", "-ProfileDescription", path]).stdout
                .split(separator: "\n").map(String.init)
        }
        let stated = try tags(input)
        #expect(stated[0] == "Kiln Test" && stated[1] == "Round trip" && stated[2] != "-", "\(stated)")
        for format in ["jpeg", "webp"] {
            let r = try export([dir.join("in"), "-o", dir.join(format), "--format", format])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try tags(dir.join(format + "/tagged." + (format == "jpeg" ? "jpg" : "webp"))) == stated, "\(format)")
        }
        let stripped = try export([dir.join("in"), "-o", dir.join("stripped"), "--strip"])
        #expect(stripped.status == 0, "\(stripped.stderr)")
        #expect(try tags(dir.join("stripped/tagged.jpg")) == ["-", "-", stated[2]])
    }

    /// Shrink-on-load: a fit to 250 of a 2000 × 1500 JPEG decodes at 1/4 (DCT scaling) and resizes the
    /// rest of the way; it must not differ visibly from a full decode and resize (ImageMagick's), nor in size.
    @Test(.enabled(if: tools, "needs ImageMagick"), arguments: [1, 6])
    func shrinkOnLoadLooksLikeAFullDecodeAndResize(orientation: Int) throws {
        let dir = try TemporaryDirectory()
        try Self.makeJPEG(dir.join("big.jpg"), width: 2000, height: 1500, quality: 92)
        if orientation != 1 {
            guard ImageTools.has("exiftool") else { return }
            try ImageTools.run("exiftool", ["-q", "-n", "-overwrite_original", "-Orientation=\(orientation)", dir.join("big.jpg")])
        }
        let r = try export([dir.join("big.jpg"), "-o", dir.join("out"), "--resize", "250x250", "--format", "png"])
        #expect(r.status == 0, "\(r.stderr)")
        try ImageTools.run("convert", [dir.join("big.jpg"), "-auto-orient", "-resize", "250x250", dir.join("full.png")])
        #expect(try ImageTools.identify(dir.join("out/big.png"), "%w %h") == (orientation == 1 ? "250 188" : "188 250"))
        let psnr = try ImageTools.psnr(dir.join("full.png"), dir.join("out/big.png"))
        #expect(psnr >= 35, "\(psnr) dB against a full decode and resize")
    }

    /// Shrink-on-load of a JPEG whose size is no multiple of the factor: 641 × 427 at 1/4 decodes 161 × 107
    /// pixels, the last column and row only in part. Before, the resize sized and placed the output from those
    /// rounded-up counts: 100 × 66 instead of the 100 × 67 its PNG gets, and content stretched by up to half an
    /// output pixel (20.8–29.1 dB against the PNG path's output; a fix that left flips' offsets out, 27.8–34.9 dB).
    /// Now it is sized from the picture's own size and resampled from its true extent, in all 8 orientations.
    @Test(.enabled(if: tools && ImageTools.has("exiftool"), "needs ImageMagick and exiftool"), arguments: 1...8)
    func shrinkOnLoadKeepsTheSizeAndPlaceOfAnOddSizedPicture(orientation: Int) throws {
        let dir = try TemporaryDirectory()
        // Sharp edges near the right and bottom (where the partial pixels are) and a patch at the top left.
        try ImageTools.run("convert", ["-size", "641x427", "xc:black", "-fill", "white", "-draw", "rectangle 560,0 640,426",
                                       "-draw", "rectangle 0,380 640,426", "-fill", "gray", "-draw", "rectangle 0,0 40,40",
                                       "-quality", "95", dir.join("odd.jpg")])
        try ImageTools.run("exiftool", ["-q", "-n", "-overwrite_original", "-Orientation=\(orientation)", dir.join("odd.jpg")])
        // The same pixels, decoded whole and stored upright: what the PNG path resizes.
        try ImageTools.run("convert", [dir.join("odd.jpg"), "-auto-orient", dir.join("whole.png")])
        for input in ["odd.jpg", "whole.png"] {
            let r = try export([dir.join(input), "-o", dir.join("out"), "--resize", "100x100", "--format", "png"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let size = orientation >= 5 ? "67 100" : "100 67"
        #expect(try ImageTools.identify(dir.join("out/odd.png"), "%w %h") == size)
        #expect(try ImageTools.identify(dir.join("out/whole.png"), "%w %h") == size)
        let psnr = try ImageTools.psnr(dir.join("out/whole.png"), dir.join("out/odd.png"))
        #expect(psnr >= 45, "\(psnr) dB against the whole decode's resize")
    }

    /// An output wider than a JPEG holds is the output's limit, said as such: before, "unsupported JPEG: …" for a
    /// PNG input read as if the input were taken for a JPEG.
    @Test(.enabled(if: ImageTools.has("vips"), "needs vips"))
    func overJPEGsSizeLimitIsSaidAsTheOutputs() throws {
        let dir = try TemporaryDirectory()
        try ImageTools.run("vips", ["black", dir.join("wide.png"), "65536", "2"])
        let r = try export([dir.join("wide.png"), "-o", dir.join("out"), "--format", "jpeg"])
        #expect(r.status == 1)
        let error = Events(r.stdoutLines).files("failed").first?["error"] as? String ?? ""
        #expect(error == "cannot be written as JPEG: 65536 × 2 pixels, and a JPEG holds at most 65500 × 65500", "\(error)")
    }

    /// A sound JPEG this libjpeg does not read (12-bit samples) is "unsupported", not "corrupt": before, the
    /// user was told the file was damaged.
    @Test(.enabled(if: tools, "needs ImageMagick"))
    func aTwelveBitJPEGIsUnsupportedNotCorrupt() throws {
        let dir = try TemporaryDirectory()
        try Self.makeJPEG(dir.join("plain.jpg"), width: 64, height: 48)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("plain.jpg"))))
        // The frame header (SOF0: FF C0, length, precision): precision 12.
        let sof = try #require(bytes.indices.dropLast().first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes[sof + 4] = 12
        try Data(bytes).write(to: URL(fileURLWithPath: dir.join("twelve.jpg")))
        let r = try export([dir.join("twelve.jpg"), "-o", dir.join("out")])
        #expect(r.status == 1)
        let error = Events(r.stdoutLines).files("failed").first?["error"] as? String ?? ""
        #expect(error.hasPrefix("unsupported JPEG: ") && error.contains("precision 12"), "\(error)")
    }

    /// `--filter nearest` picks single source pixels (pixel art), so a JPEG is not shrunk on load for it: a 1/4
    /// decode holds block averages. Before, a 2000-wide JPEG resized to 125 with nearest differed from the same
    /// pixels decoded whole by up to 181 levels (PSNR 23.9 dB); now the two are the same pixels.
    @Test(.enabled(if: tools, "needs ImageMagick"))
    func nearestPicksSourcePixelsNotAShrunkDecode() throws {
        let dir = try TemporaryDirectory()
        try Self.makeJPEG(dir.join("big.jpg"), width: 2000, height: 1500, quality: 92)
        // The same pixels decoded whole, stored losslessly.
        let whole = try export([dir.join("big.jpg"), "-o", dir.join("whole"), "--format", "png"])
        #expect(whole.status == 0, "\(whole.stderr)")
        for input in [dir.join("big.jpg"), dir.join("whole/big.png")] {
            let r = try export([input, "-o", dir.join(input.hasSuffix(".jpg") ? "from-jpeg" : "from-png"), "--resize", "125x",
                                "--filter", "nearest", "--format", "png"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let fromJPEG = try PNGDecoder.decode(contentsOf: dir.join("from-jpeg/big.png"))
        let fromPNG = try PNGDecoder.decode(contentsOf: dir.join("from-png/big.png"))
        #expect(fromJPEG.width == 125 && fromJPEG.height == 94)
        #expect(fromJPEG == fromPNG, "nearest of a JPEG differs from nearest of its pixels decoded whole")
    }

    /// Before: with the journal cleaned, an output made again and compared was judged by its pixels alone, so
    /// `--strip` over a JPEG or WebP that kept EXIF said "skipped", exit 0, and the EXIF stayed; so did
    /// `--progressive` over a baseline JPEG and `--lossless` over a lossy WebP whose pixels happened to agree.
    @Test(.enabled(if: tools && ImageTools.has("exiftool"), "needs ImageMagick and exiftool"), arguments: ["jpeg", "webp"])
    func withoutItsJournalALossyOutputIsJudgedByItsWholeFile(format: String) throws {
        let dir = try TemporaryDirectory()
        try Self.makeJPEG(dir.join("photo.jpg"))
        try ImageTools.run("exiftool", ["-q", "-overwrite_original", "-Artist=Kiln Test", dir.join("photo.jpg")])
        let output = dir.join("out/photo." + (format == "jpeg" ? "jpg" : "webp"))
        func artist() throws -> String {
            try ImageTools.run("exiftool", ["-s3", "-f", "-Artist", output]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let cache = ["XDG_CACHE_HOME": dir.join("cache")]
        let first = try export([dir.join("photo.jpg"), "-o", dir.join("out"), "--format", format], environment: cache)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try artist() == "Kiln Test")
        let other = format == "jpeg" ? ["--progressive"] : ["--lossless"]
        // With the cache's record of the file (which says what made it) and with none (the file is compared).
        for (options, environment) in [(["--strip"], cache), (other, cache),
                                        (["--strip"], ["XDG_CACHE_HOME": dir.join("no-record")]),
                                        (other, ["XDG_CACHE_HOME": dir.join("no-record")])] {
            let r = try export([dir.join("photo.jpg"), "-o", dir.join("out"), "--format", format] + options,
                               environment: environment)
            #expect(r.status == 1, "\(options), \(environment): \(r.stdout)")
            #expect(Events(r.stdoutLines).files("conflict").count == 1, "\(options), \(environment): \(r.stdout)")
            #expect(try artist() == "Kiln Test", "\(options): the output was replaced")
        }
        let same = try export([dir.join("photo.jpg"), "-o", dir.join("out"), "--format", format], environment: cache)
        #expect(same.status == 0, "\(same.stdout)")
        #expect(Events(same.stdoutLines).files("skipped").count == 1, "\(same.stdout)")
    }

    /// The plan's digest holds every format option: another quality is a conflict, the same one a skip.
    @Test(.enabled(if: tools, "needs ImageMagick"))
    func anotherQualityIsAConflictTheSameASkip() throws {
        let dir = try TemporaryDirectory()
        try Self.makeJPEG(dir.join("photo.jpg"))
        let first = try export([dir.join("photo.jpg"), "-o", dir.join("out"), "--quality", "80", "--keep-journal"])
        #expect(first.status == 0, "\(first.stderr)")
        let same = try export([dir.join("photo.jpg"), "-o", dir.join("out"), "--quality", "80", "--keep-journal"])
        #expect(Events(same.stdoutLines).files("skipped").count == 1, "\(same.stdout)")
        let other = try export([dir.join("photo.jpg"), "-o", dir.join("out"), "--quality", "60", "--keep-journal"])
        #expect(other.status == 1)
        #expect(Events(other.stdoutLines).files("conflict").first?[string: "error"].contains("other options") == true,
                "\(other.stdout)")
    }
}

/// A camera's photo gets optimised Huffman tables at any quality: libjpeg holds every coefficient for them, which kiln
/// allowed up to 64 MiB, 11 MPix at 4:4:4 (the default from quality 90). A 12 MP photo at quality 90 came with the
/// standard tables, 5 % larger than `cjpeg -optimize` makes it. The standard luminance DC table (ITU T.81 K.3) is
/// what optimised ones never are.
@Test(.enabled(if: ImageTools.has("vips"), "needs vips to make the 12 MP input"))
func aTwelveMegapixelPhotoAtQuality90GetsOptimisedTables() throws {
    let dir = try TemporaryDirectory()
    for (index, mean) in [128, 100, 90].enumerated() {
        try ImageTools.run("vips", ["gaussnoise", dir.join("n\(index).v"), "4000", "3000", "--mean", "\(mean)", "--sigma", "40"])
    }
    try ImageTools.run("vips", ["bandjoin", "\(dir.join("n0.v")) \(dir.join("n1.v")) \(dir.join("n2.v"))", dir.join("n.v")])
    try ImageTools.run("vips", ["cast", dir.join("n.v"), dir.join("photo.png"), "uchar"])
    let r = try kiln(["export", dir.join("photo.png"), "-o", dir.join("out"), "--format", "jpeg", "--quality", "90",
                      "--device", "cpu", "--progress", "none"])
    #expect(r.status == 0, "\(r.stderr)")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: dir.join("out/photo.jpg")))
    let standardDC = Data([0x00, 0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0] + Array(0...11))
    #expect(bytes.range(of: standardDC) == nil, "the standard tables: not optimised")
    // Where --memory leaves too little for the 72 MB of coefficients, the image streams with the standard tables
    // rather than fail: kiln holds about 28 MB itself on the CPU (the debug build), the image about 49 MB while it
    // streams. (The budgets were 150M-260M while `--device auto` loaded lavapipe here: 90 MB of kiln's own.)
    let tight = try kiln(["export", dir.join("photo.png"), "-o", dir.join("tight"), "--format", "jpeg", "--quality", "90",
                          "--memory", "100M", "--device", "cpu", "--progress", "none"])
    #expect(tight.status == 0, "\(tight.stderr)")
    let streamed = try Data(contentsOf: URL(fileURLWithPath: dir.join("tight/photo.jpg")))
    #expect(streamed.range(of: standardDC) != nil, "the standard tables, streamed")
    // More memory never fails what less wrote: between the two, the coefficients were weighed against all the
    // writer's room, the output's bytes then overran it, and the image failed (at 170M, where 150M wrote it, with
    // lavapipe's 60 MB loaded).
    var tables: [Bool] = []
    for megabytes in stride(from: 80, through: 200, by: 10) {
        let out = dir.join("m\(megabytes)")
        let r = try kiln(["export", dir.join("photo.png"), "-o", out, "--format", "jpeg", "--quality", "90",
                          "--memory", "\(megabytes)M", "--device", "cpu", "--progress", "none"])
        #expect(r.status == 0, "--memory \(megabytes)M: \(r.stderr)")
        if let bytes = try? Data(contentsOf: URL(fileURLWithPath: out + "/photo.jpg")) { tables.append(bytes.range(of: standardDC) == nil) }
    }
    #expect(tables.first == false && tables.last == true, "standard tables below, optimised above: \(tables)")
}

/// What a JPEG's header says beside its pixels, through the CLI, checked with exiftool: the JFIF density, the EXIF
/// thumbnail and extended XMP. Before: a JFIF's 300 dpi came out as "1, no unit" (and no pHYs in a PNG); the thumbnail
/// of a turned or cropped photo was kept, sideways and uncropped once the orientation said 1; extended XMP was left out
/// of every output without a word, the kept packet still naming it.
@Suite(.enabled(if: JPEGFormatTests.tools && ImageTools.has("exiftool"), "needs ImageMagick and exiftool"))
struct JPEGHeaderTests {
    private func tag(_ name: String, of path: String, options: [String] = []) throws -> String {
        try ImageTools.run("exiftool", ["-s3"] + options + ["-" + name, path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func theJFIFDensityIsKept() throws {
        let dir = try TemporaryDirectory()
        try JPEGFormatTests.makeJPEG(dir.join("d.jpg"), extra: ["-density", "300", "-units", "PixelsPerInch"])
        for format in ["jpeg", "png"] {
            let r = try kiln(["export", dir.join("d.jpg"), "-o", dir.join(format), "--format", format, "--progress", "none"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        #expect(try tag("XResolution", of: dir.join("jpeg/d.jpg")) == "300")
        #expect(try tag("ResolutionUnit", of: dir.join("jpeg/d.jpg")) == "inches")
        #expect(try tag("PixelsPerUnitX", of: dir.join("png/d.png")) == "11811", "pHYs: 300 dpi")
        // With EXIF kept (no XResolution of its own), a JFIF before it says the density.
        try ImageTools.run("exiftool", ["-overwrite_original", "-Orientation#=1", "-IFD0:XResolution=", "-IFD0:YResolution=",
                                        "-IFD0:ResolutionUnit=", dir.join("d.jpg")])
        let exif = try kiln(["export", dir.join("d.jpg"), "-o", dir.join("exif"), "--progress", "none"])
        #expect(exif.status == 0, "\(exif.stderr)")
        #expect(try tag("JFIF:XResolution", of: dir.join("exif/d.jpg")) == "300")
        #expect(try tag("Orientation", of: dir.join("exif/d.jpg"), options: ["-n"]) == "1", "the EXIF kept too")
        // --keep without phys leaves it out.
        let none = try kiln(["export", dir.join("d.jpg"), "-o", dir.join("none"), "--keep", "icc", "--progress", "none"])
        #expect(none.status == 0, "\(none.stderr)")
        #expect(try tag("ResolutionUnit", of: dir.join("none/d.jpg")) == "None")
    }

    /// A JFIF or pHYs that states only the pixels' aspect ratio (no unit; 2 : 1 is pixels half as wide as high) keeps
    /// it in every output that can say it: before, a JPEG's came out 1:1 and a PNG's was left out of a JPEG.
    @Test func anAspectRatioAloneIsKept() throws {
        let dir = try TemporaryDirectory()
        try JPEGFormatTests.makeJPEG(dir.join("a.jpg"))
        var jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("a.jpg"))))
        let jfif = try #require((0..<(jpeg.count - 5)).first { jpeg[$0..<($0 + 5)].elementsEqual(Array("JFIF\0".utf8)) })
        jpeg.replaceSubrange((jfif + 7)..<(jfif + 12), with: [0, 0, 2, 0, 1])
        try Data(jpeg).write(to: URL(fileURLWithPath: dir.join("a.jpg")))
        let rows: [[UInt8]] = [[0, 0, 0, 255, 255, 255]]
        let phys = PNGBytes.chunk("pHYs", PNGBytes.bigEndian(4) + PNGBytes.bigEndian(2) + [0])
        try Data(PNGBytes.stored(width: 2, colorType: 2, rows: rows, before: phys)).write(to: URL(fileURLWithPath: dir.join("p.png")))
        for format in ["jpeg", "png"] {
            let r = try kiln(["export", dir.join("a.jpg"), dir.join("p.png"), "-o", dir.join(format), "--format", format,
                              "--progress", "none"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        for name in ["a", "p"] {
            let output = dir.join("jpeg/\(name).jpg")
            #expect(try [tag("XResolution", of: output), tag("YResolution", of: output), tag("ResolutionUnit", of: output)]
                    == ["2", "1", "None"], "\(name)")
        }
        let png = dir.join("png/a.png")
        #expect(try [tag("PixelsPerUnitX", of: png), tag("PixelsPerUnitY", of: png), tag("PixelUnits", of: png)]
                == ["2", "1", "Unknown"])
        // A quarter turn swaps the two (kept as they were, a turned picture showed stretched), PNG to PNG included.
        for format in ["jpeg", "png"] {
            let r = try kiln(["export", dir.join("a.jpg"), dir.join("p.png"), "-o", dir.join("turned-" + format), "--format", format,
                              "--rotate", "90", "--progress", "none"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        for name in ["a", "p"] {
            let output = dir.join("turned-jpeg/\(name).jpg")
            #expect(try [tag("XResolution", of: output), tag("YResolution", of: output)] == ["1", "2"], "\(name)")
        }
        let turned = dir.join("turned-png/p.png")
        #expect(try [tag("PixelsPerUnitX", of: turned), tag("PixelsPerUnitY", of: turned)] == ["2", "4"])
    }

    /// What the EXIF says beside the pixels follows what was done to them. A quarter turn swaps its own densities
    /// (only a JFIF's or pHYs's were: IFD0's, which exiftool and most viewers read first, said the density across was
    /// the one now down). A conversion makes ColorSpace and the DCF index say the output's colours: they said sRGB of
    /// Display P3 pixels, and Adobe RGB ("R03") of pixels converted to sRGB, which a viewer that reads them where there
    /// is no profile showed wrong.
    @Test func theEXIFSaysTheOutputsDensityAndColours() throws {
        let dir = try TemporaryDirectory()
        try JPEGFormatTests.makeJPEG(dir.join("d.jpg"))
        try ImageTools.run("exiftool", ["-overwrite_original", "-IFD0:XResolution=300", "-IFD0:YResolution=150",
                                        "-IFD0:ResolutionUnit=inches", "-ExifIFD:ColorSpace=sRGB", "-InteropIndex=R98",
                                        dir.join("d.jpg")])
        func export(_ input: String, _ folder: String, _ options: [String]) throws -> String {
            let r = try kiln(["export", input, "-o", dir.join(folder), "--progress", "none"] + options)
            #expect(r.status == 0, "\(r.stderr)")
            return dir.join(folder) + "/" + (input as NSString).lastPathComponent
        }
        let turned = try export(dir.join("d.jpg"), "turned", ["--rotate", "90"])
        #expect(try [tag("IFD0:XResolution", of: turned), tag("IFD0:YResolution", of: turned)] == ["150", "300"])
        let unturned = try export(dir.join("d.jpg"), "unturned", ["--rotate", "180"])
        #expect(try [tag("IFD0:XResolution", of: unturned), tag("IFD0:YResolution", of: unturned)] == ["300", "150"])
        for format in ["jpeg", "png", "webp"] {
            var p3 = try export(dir.join("d.jpg"), "p3-" + format, ["--profile", "p3", "--format", format])
            p3 = (p3 as NSString).deletingPathExtension + (format == "jpeg" ? ".jpg" : "." + format)
            #expect(try tag("ColorSpace", of: p3, options: ["-n"]) == "65535", "\(format): uncalibrated")
            #expect(try tag("InteropIndex", of: p3, options: ["-n"]) == "", "\(format): no DCF colour space")
        }
        // A camera's Adobe RGB file (ColorSpace uncalibrated, index R03), converted to sRGB.
        let adobe = dir.join("p3-jpeg/d.jpg")
        try ImageTools.run("exiftool", ["-overwrite_original", "-InteropIndex=R03", adobe])
        let srgb = try export(adobe, "srgb", ["--profile", "srgb"])
        #expect(try tag("ColorSpace", of: srgb, options: ["-n"]) == "1")
        #expect(try tag("InteropIndex", of: srgb, options: ["-n"]) == "R98")
        // Not converted: as it was.
        let kept = try export(adobe, "kept", [])
        #expect(try [tag("ColorSpace", of: kept, options: ["-n"]), tag("InteropIndex", of: kept, options: ["-n"])] == ["65535", "R03"])
    }

    /// The XMP says what the output is, as the EXIF does: its size (`tiff:ImageWidth`, `exif:PixelXDimension`, …)
    /// and, once converted, its colours (`exif:ColorSpace`, `photoshop:ICCProfile`). Before, a photo resized to 10
    /// wide and converted to Display P3 kept XMP saying 400 × 300 and "Adobe RGB (1998)", which Lightroom and
    /// exiftool show. Not converted, the colours are said as they were.
    @Test func theXMPSaysTheOutputsSizeAndColours() throws {
        let dir = try TemporaryDirectory()
        try JPEGFormatTests.makeJPEG(dir.join("x.jpg"))
        try ImageTools.run("exiftool", ["-overwrite_original", "-XMP-exif:ExifImageWidth=400", "-XMP-exif:ExifImageHeight=300",
                                        "-XMP-exif:ColorSpace#=65535", "-XMP-photoshop:ICCProfileName=Adobe RGB (1998)",
                                        "-XMP-tiff:ImageWidth=400", "-XMP-tiff:ImageHeight=300", dir.join("x.jpg")])
        func xmp(_ path: String) throws -> [String] {
            try ["XMP-tiff:ImageWidth", "XMP-tiff:ImageHeight", "XMP-exif:ExifImageWidth", "XMP-exif:ExifImageHeight",
                 "XMP-exif:ColorSpace", "XMP-photoshop:ICCProfileName"].map { try tag($0, of: path, options: ["-n"]) }
        }
        for (format, ext) in [("jpeg", "jpg"), ("png", "png"), ("webp", "webp")] {
            let out = dir.join("p3-" + format)
            let r = try kiln(["export", dir.join("x.jpg"), "-o", out, "--resize", "10x", "--profile", "p3", "--format", format,
                              "--progress", "none"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try xmp(out + "/x." + ext) == ["10", "8", "10", "8", "65535", "Display P3"], "\(format)")
        }
        let srgb = dir.join("srgb")
        #expect(try kiln(["export", dir.join("x.jpg"), "-o", srgb, "--rotate", "90", "--profile", "srgb",
                          "--progress", "none"]).status == 0)
        #expect(try xmp(srgb + "/x.jpg") == ["300", "400", "300", "400", "1", "sRGB built-in"], "the name of the profile kiln embeds")
        let kept = dir.join("kept")
        #expect(try kiln(["export", dir.join("x.jpg"), "-o", kept, "--progress", "none"]).status == 0)
        #expect(try xmp(kept + "/x.jpg") == ["400", "300", "400", "300", "65535", "Adobe RGB (1998)"])
        // Untagged (no profile kept), an output's colours are sRGB: its XMP says so, as its EXIF does.
        let untagged = dir.join("untagged")
        #expect(try kiln(["export", dir.join("x.jpg"), "-o", untagged, "--keep", "exif,text,other", "--progress", "none"]).status == 0)
        #expect(try xmp(untagged + "/x.jpg") == ["400", "300", "400", "300", "1", "sRGB IEC61966-2.1"])
        // So is a Display P3 photo's, converted to sRGB for the profile left out: it said "sRGB built-in", the name of
        // a profile kept nowhere (the conversion's).
        let converted = dir.join("converted")
        #expect(try kiln(["export", dir.join("p3-jpeg/x.jpg"), "-o", converted, "--keep", "exif,text,other",
                          "--progress", "none"]).status == 0)
        #expect(try xmp(converted + "/x.jpg") == ["10", "8", "10", "8", "1", "sRGB IEC61966-2.1"])
    }

    /// A camera set to Adobe RGB writes no ICC profile, only EXIF's ColorSpace uncalibrated and InteropIndex "R03"
    /// (DCF's Adobe RGB file): its colours are read as Adobe RGB (1998). Before, as vips and ImageMagick do, they were
    /// read as sRGB: `--profile srgb` left the pixels as they were (dull), and no output said what they were.
    @Test func anAdobeRGBCameraFileIsReadAsAdobeRGB() throws {
        let dir = try TemporaryDirectory()
        let input = dir.join("c.jpg")
        try ImageTools.run("convert", ["-size", "16x16", "xc:rgb(200,80,40)", "-quality", "100", "-sampling-factor", "1x1", input])
        try ImageTools.run("exiftool", ["-overwrite_original", "-ExifIFD:ColorSpace#=65535", "-InteropIndex=R03", input])
        func export(_ folder: String, _ options: [String]) throws -> ChildProcess.Outcome {
            let r = try kiln(["export", input, "-o", dir.join(folder), "--progress", "none"] + options)
            #expect(r.status == 0, "\(r.stderr)")
            return r
        }
        _ = try export("kept", ["--format", "png"])
        #expect(try tag("ProfileDescription", of: dir.join("kept/c.png")) == "Adobe RGB (1998) from EXIF", "an output says it")
        // Adobe RGB (1998) to sRGB by its definition: its curve (563/256), its primaries' XYZ (D65), sRGB's.
        let stored = try ImageTools.pixel(dir.join("kept/c.png"), 5, 5)
        let linear = stored.map { pow(Double($0) / 255, 563.0 / 256) }
        let toXYZ = [[0.5767309, 0.1855540, 0.1881852], [0.2973769, 0.6273491, 0.0752741], [0.0270343, 0.0706872, 0.9911085]]
        let toSRGB = [[3.2404542, -1.5371385, -0.4985314], [-0.9692660, 1.8760108, 0.0415560], [0.0556434, -0.2040259, 1.0572252]]
        func times(_ m: [[Double]], _ v: [Double]) -> [Double] { m.map { zip($0, v).map(*).reduce(0, +) } }
        let expected = times(toSRGB, times(toXYZ, linear)).map { value -> Int in
            let v = min(1, max(0, value))
            return Int((255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055)).rounded())
        }
        #expect(expected != stored, "the colour is one the conversion moves: \(stored) → \(expected)")
        _ = try export("srgb", ["--format", "png", "--profile", "srgb"])
        let converted = try ImageTools.pixel(dir.join("srgb/c.png"), 5, 5)
        #expect(zip(converted, expected).allSatisfy { abs($0 - $1) <= 2 }, "\(stored) → \(converted), Adobe RGB's \(expected)")
        #expect(try [tag("ColorSpace", of: dir.join("srgb/c.png"), options: ["-n"]), tag("InteropIndex", of: dir.join("srgb/c.png"), options: ["-n"])]
                == ["1", "R98"])
        // Without its profile (--keep exif), converted to sRGB first, said once.
        let dropped = try export("exif", ["--keep", "exif"])
        #expect(dropped.stderr.contains("Adobe RGB (EXIF's InteropIndex R03) left out: --keep does not keep it, so the pixels were converted"),
                "\(dropped.stderr)")
        #expect(zip(try ImageTools.pixel(dir.join("exif/c.jpg"), 5, 5), expected).allSatisfy { abs($0 - $1) <= 3 })
        #expect(try tag("InteropIndex", of: dir.join("exif/c.jpg"), options: ["-n"]) == "R98")
        // A PNG's eXIf says it before the image data; one after it comes too late (the colours were taken before it:
        // a conversion used sRGB while an output without one was tagged Adobe RGB), and a warning says so.
        let jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: input)))
        let exif = try #require((2..<(jpeg.count - 6)).first { jpeg[$0..<($0 + 6)].elementsEqual(Array("Exif".utf8) + [0, 0]) })
        let tiff = Array(jpeg[(exif + 6)..<(exif - 2 + (Int(jpeg[exif - 2]) << 8 | Int(jpeg[exif - 1])))])  // APP1's length
        #expect(tiff.starts(with: Array("MM".utf8)) || tiff.starts(with: Array("II".utf8)), "the EXIF as a TIFF stream")
        let flat = [[UInt8]](repeating: (0..<16).flatMap { _ in stored.map(UInt8.init) }, count: 16)
        let plain = PNGBytes.stored(width: 16, colorType: 2, rows: flat)
        try Data(PNGBytes.stored(width: 16, colorType: 2, rows: flat, before: PNGBytes.chunk("eXIf", tiff)))
            .write(to: URL(fileURLWithPath: dir.join("early.png")))
        try Data(plain.dropLast(12) + PNGBytes.chunk("eXIf", tiff) + plain.suffix(12)).write(to: URL(fileURLWithPath: dir.join("late.png")))
        let pngs = try kiln(["export", dir.join("early.png"), dir.join("late.png"), "-o", dir.join("pngs"), "--profile", "srgb",
                             "--progress", "none"])
        #expect(pngs.status == 0, "\(pngs.stderr)")
        #expect(zip(try ImageTools.pixel(dir.join("pngs/early.png"), 5, 5), expected).allSatisfy { abs($0 - $1) <= 2 })
        #expect(try ImageTools.pixel(dir.join("pngs/late.png"), 5, 5) == stored, "read as sRGB, as the chunks before it say")
        #expect(pngs.stderr.contains("late.png: eXIf says Adobe RGB (InteropIndex R03) after the image data, too late"), "\(pngs.stderr)")
        // An sRGB chunk beside it says sRGB, and wins; dropped (--keep exif), the EXIF says sRGB too: left saying Adobe RGB
        // beside pixels nothing else defined, the output was read as Adobe RGB (by kiln too).
        try Data(PNGBytes.stored(width: 16, colorType: 2, rows: flat, before: PNGBytes.chunk("sRGB", [0]) + PNGBytes.chunk("eXIf", tiff)))
            .write(to: URL(fileURLWithPath: dir.join("srgb.png")))
        let untagged = try kiln(["export", dir.join("srgb.png"), "-o", dir.join("untagged"), "--keep", "exif", "--progress", "none"])
        #expect(untagged.status == 0, "\(untagged.stderr)")
        #expect(try ImageTools.pixel(dir.join("untagged/srgb.png"), 5, 5) == stored)
        #expect(try [tag("ColorSpace", of: dir.join("untagged/srgb.png"), options: ["-n"]),
                     tag("InteropIndex", of: dir.join("untagged/srgb.png"), options: ["-n"])] == ["1", "R98"])
        // A gray JPEG's pixels have no primaries: left as they are, and written gray (an RGB profile made a PNG RGB).
        try ImageTools.run("convert", ["-size", "16x16", "gradient:", "-colorspace", "gray", "-type", "grayscale", dir.join("g.jpg")])
        try ImageTools.run("exiftool", ["-overwrite_original", "-ExifIFD:ColorSpace#=65535", "-InteropIndex=R03", dir.join("g.jpg")])
        let gray = try kiln(["export", dir.join("g.jpg"), "-o", dir.join("gray"), "--format", "png", "--progress", "none"])
        #expect(gray.status == 0, "\(gray.stderr)")
        #expect(try ImageTools.identify(dir.join("gray/g.png"), "%[channels]") == "gray", "written gray")
        #expect(try tag("ProfileDescription", of: dir.join("gray/g.png")).isEmpty)
        // ColorSpace sRGB beside R03 says two things: sRGB, the tag's own, is taken.
        try ImageTools.run("exiftool", ["-overwrite_original", "-ExifIFD:ColorSpace#=1", input])
        _ = try export("contradicting", ["--format", "png", "--profile", "srgb"])
        #expect(zip(try ImageTools.pixel(dir.join("contradicting/c.png"), 5, 5), stored).allSatisfy { abs($0 - $1) <= 1 })
    }

    @Test func theThumbnailGoesWhenThePictureChanges() throws {
        let dir = try TemporaryDirectory()
        try JPEGFormatTests.makeJPEG(dir.join("thumb.jpg"), width: 120, height: 160)
        for (name, orientation) in [("t.jpg", "6"), ("plain.jpg", "1")] {
            try JPEGFormatTests.makeJPEG(dir.join(name), width: 300, height: 400)
            try ImageTools.run("exiftool", ["-overwrite_original", "-Orientation#=" + orientation,
                                            "-ThumbnailImage<=" + dir.join("thumb.jpg"), dir.join(name)])
        }
        // Turned (orientation 6), or cropped: the thumbnail shows another picture. Its bytes go too: unlinked only,
        // a cropped output still held the whole picture's thumbnail (JPEG and WebP alike).
        let thumbnailBytes = try Data(contentsOf: URL(fileURLWithPath: dir.join("thumb.jpg")))
        for (input, options, kept) in [("t.jpg", [String](), false), ("plain.jpg", ["--crop", "0,0,100,100"], false),
                                       ("plain.jpg", ["--crop", "0,0,100,100", "--format", "webp"], false),
                                       ("plain.jpg", [], true)] {
            let out = dir.join("out-\(UUID().uuidString)")
            let r = try kiln(["export", dir.join(input), "-o", out, "--progress", "none"] + options)
            #expect(r.status == 0, "\(r.stderr)")
            let output = out + "/" + (options.contains("webp") ? "plain.webp" : input)
            let thumbnail = try tag("ThumbnailLength", of: output)
            #expect(thumbnail.isEmpty != kept, "\(input) \(options): ThumbnailLength \(thumbnail)")
            #expect(try tag("Orientation", of: output, options: ["-n"]) == "1", "\(input)")
            let written = try Data(contentsOf: URL(fileURLWithPath: output))
            #expect((written.range(of: thumbnailBytes) != nil) == kept, "\(input) \(options): the thumbnail's bytes")
        }
    }

    @Test func extendedXMPComesThroughOrIsSaid() throws {
        let dir = try TemporaryDirectory()
        try JPEGFormatTests.makeJPEG(dir.join("x.jpg"))
        let long = String(repeating: "A long caption. ", count: 6000)  // 96,000 bytes: past one segment
        try long.write(toFile: dir.join("long.txt"), atomically: true, encoding: .utf8)
        try ImageTools.run("exiftool", ["-overwrite_original", "-XMP-dc:Description<=" + dir.join("long.txt"), "-XMP-dc:Title=T1",
                                        dir.join("x.jpg")])
        try #require(try tag("HasExtendedXMP", of: dir.join("x.jpg")).count > 0, "exiftool wrote no extended XMP")
        let jpeg = try kiln(["export", dir.join("x.jpg"), "-o", dir.join("jpeg"), "--progress", "json"])
        #expect(jpeg.status == 0, "\(jpeg.stderr)")
        #expect(Events(jpeg.stdoutLines).named("warning").isEmpty, "\(jpeg.stdout)")
        #expect(try tag("Description", of: dir.join("jpeg/x.jpg")) == long.trimmingCharacters(in: .whitespaces), "the whole caption")
        let webp = try kiln(["export", dir.join("x.jpg"), "-o", dir.join("webp"), "--format", "webp", "--progress", "json"])
        #expect(webp.status == 0, "\(webp.stderr)")
        let said = Events(webp.stdoutLines).named("warning").map { $0[string: "message"] }
        #expect(said.count == 1 && said[0].contains("extended XMP left out: WebP has no place"), "\(said)")
        #expect(try tag("Title", of: dir.join("webp/x.webp")) == "T1", "the first part is kept")
    }

    /// A PNG's text entries a JPEG or WebP output has no place for are said once a job: the author's Title, Author or
    /// Description went without a word (a JPEG keeps the Comment, as COM). A PNG output keeps them all, unsaid.
    @Test func textAnOutputCannotHoldIsSaid() throws {
        let dir = try TemporaryDirectory()
        let rows: [[UInt8]] = [[0, 0, 0, 255, 255, 255]]
        let text = PNGBytes.chunk("tEXt", Array("Author".utf8) + [0] + Array("Ann".utf8))
            + PNGBytes.chunk("tEXt", Array("Comment".utf8) + [0] + Array("dawn".utf8))
        for name in ["a.png", "b.png"] {
            try Data(PNGBytes.stored(width: 2, colorType: 2, rows: rows, before: text)).write(to: URL(fileURLWithPath: dir.join(name)))
        }
        for (format, said) in [("jpeg", true), ("webp", true), ("png", false)] {
            let r = try kiln(["export", dir.join("a.png"), dir.join("b.png"), "-o", dir.join(format), "--format", format,
                              "--progress", "json"])
            #expect(r.status == 0, "\(r.stderr)")
            let warnings = Events(r.stdoutLines).named("warning").map { $0[string: "message"] }.filter { $0.contains("text left out") }
            #expect(warnings.count == (said ? 1 : 0), "\(format): once a job: \(warnings)")
        }
        #expect(try tag("Comment", of: dir.join("jpeg/a.jpg")) == "dawn")
    }

    /// A JPEG's comment (COM) was dropped without a word: it is kept in a JPEG output and written as a PNG's
    /// "Comment" text, which a JPEG output of that PNG writes back as COM (as exiftool and ImageMagick map them).
    @Test func aCommentComesThrough() throws {
        let dir = try TemporaryDirectory()
        try JPEGFormatTests.makeJPEG(dir.join("c.jpg"))
        try ImageTools.run("exiftool", ["-overwrite_original", "-Comment=Café at dawn, 6 am", dir.join("c.jpg")])
        try #require(try tag("Comment", of: dir.join("c.jpg")) == "Café at dawn, 6 am")
        for format in ["jpeg", "png"] {
            let r = try kiln(["export", dir.join("c.jpg"), "-o", dir.join(format), "--format", format, "--progress", "none"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        #expect(try tag("Comment", of: dir.join("jpeg/c.jpg")) == "Café at dawn, 6 am")
        #expect(try tag("PNG:Comment", of: dir.join("png/c.png")) == "Café at dawn, 6 am")
        let back = try kiln(["export", dir.join("png/c.png"), "-o", dir.join("back"), "--format", "jpeg", "--progress", "none"])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(try tag("Comment", of: dir.join("back/c.jpg")) == "Café at dawn, 6 am")
        // A comment in Latin-1 (no UTF-8) comes through byte for byte: it came back as UTF-8 ("caf\xC3\xA9").
        let plain = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("c.jpg"))))
        let latin1: [UInt8] = Array("caf".utf8) + [0xE9, 0] + Array("with a NUL".utf8)
        let com: [UInt8] = [0xFF, 0xFE, 0, UInt8(latin1.count + 2)] + latin1
        try Data(plain.prefix(2) + com + plain.dropFirst(2)).write(to: URL(fileURLWithPath: dir.join("l.jpg")))
        let kept = try kiln(["export", dir.join("l.jpg"), "-o", dir.join("latin1"), "--progress", "none"])
        #expect(kept.status == 0, "\(kept.stderr)")
        let written = try Data(contentsOf: URL(fileURLWithPath: dir.join("latin1/l.jpg")))
        #expect(written.range(of: Data(com)) != nil, "the Latin-1 comment, byte for byte")
        // --keep without text leaves it out.
        let none = try kiln(["export", dir.join("c.jpg"), "-o", dir.join("none"), "--keep", "exif", "--progress", "none"])
        #expect(none.status == 0, "\(none.stderr)")
        #expect(try tag("Comment", of: dir.join("none/c.jpg")).isEmpty)
    }

    /// Before: libjpeg's jpeg_save_markers kept every segment, appending each by walking its list from the head:
    /// 100000 three-byte comments (a 700 KB file) took 26 s to read, a million ran past the stall watchdog while
    /// the job was planned, before any other image, on every resume. Now the first 1000 are kept, and the rest
    /// are said to be left out.
    @Test func segmentsPastTheLimitAreLeftOutAndSaid() throws {
        let dir = try TemporaryDirectory()
        try JPEGFormatTests.makeJPEG(dir.join("plain.jpg"))
        // Turned a quarter by its EXIF, which comes after the comments: a flood of one marker leaves the others be.
        try ImageTools.run("exiftool", ["-q", "-overwrite_original", "-n", "-Orientation=6", dir.join("plain.jpg")])
        let plain = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("plain.jpg"))))
        let comments: [UInt8] = (0..<3000).flatMap { _ in [0xFF, 0xFE, 0, 5] + Array("abc".utf8) }
        try Data(plain.prefix(2) + comments + plain.dropFirst(2)).write(to: URL(fileURLWithPath: dir.join("many.jpg")))
        let r = try kiln(["export", dir.join("many.jpg"), "-o", dir.join("out"), "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = Events(r.stdoutLines).named("warning").compactMap { $0["message"] as? String }
        #expect(warnings.contains { $0.contains("many.jpg") && $0.contains("past the limits of 1000 of one marker") }, "\(warnings)")
        // Entropy-coded data never holds FF FE (a data FF is followed by 00): every one is a comment's marker.
        let written = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("out/many.jpg"))))
        let kept = zip(written, written.dropFirst()).filter { $0.0 == 0xFF && $0.1 == 0xFE }.count
        #expect(kept == 1000, "comments written")
        let size = try ImageTools.run("identify", ["-format", "%wx%h", dir.join("out/many.jpg")]).stdout
        #expect(size == "300x400", "the EXIF orientation after the comments applied")
    }
}
