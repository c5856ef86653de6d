@testable import Export
import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// WebP in and out (issue 27), checked with libwebp's own tools (`cwebp`, `dwebp`, `img2webp`) and ImageMagick.
@Suite struct WebPFormatTests {
    static let tools = ImageTools.has("convert") && ImageTools.has("compare") && ImageTools.has("cwebp")
        && ImageTools.has("dwebp") && ImageTools.has("img2webp")

    private func export(_ arguments: [String]) throws -> ChildProcess.Outcome {
        try kiln(["export"] + arguments + ["--device", "cpu", "--progress", "json"])
    }

    /// `in/` with an 8-bit opaque PNG, an 8-bit PNG with alpha (fully transparent parts included),
    /// and lossy and lossless WebPs made by cwebp.
    private func makeInputs() throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        try ImageTools.run("convert", ["-seed", "5", "-size", "160x120", "plasma:", "-depth", "8", "PNG24:" + dir.join("in/photo.png")])
        try ImageTools.run("convert", ["-size", "64x48", "xc:none", "-fill", "rgba(0,128,255,0.6)", "-draw", "circle 32,24 32,4",
                                       "-depth", "8", "PNG32:" + dir.join("in/alpha.png")])
        try ImageTools.run("cwebp", ["-quiet", "-q", "75", dir.join("in/photo.png"), "-o", dir.join("in/lossy.webp")])
        try ImageTools.run("cwebp", ["-quiet", "-lossless", "-exact", dir.join("in/alpha.png"), "-o", dir.join("in/lossless.webp")])
        return dir
    }

    /// A WebP's EXIF chunk given twice, or not flagged by its VP8X header (libwebp, browsers and vips read none such),
    /// is said: the orientation of an unflagged one vanished without a word.
    @Test func unreadMetadataChunksAreSaid() throws {
        let dir = try TemporaryDirectory()
        try Data(OrientedImages.png(exif: OrientedImages.exif(orientation: 6, littleEndian: true)))
            .write(to: URL(fileURLWithPath: dir.join("turned.png")))
        let made = try kiln(["export", dir.join("turned.png"), "-o", dir.join("webp"), "--format", "webp", "--lossless",
                             "--no-autorotate", "--progress", "none"])
        #expect(made.status == 0, "\(made.stderr)")
        let webp = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("webp/turned.webp"))))
        // The chunks after the RIFF header: fourcc, size (little-endian), payload padded to an even size.
        var chunks: [(name: String, range: Range<Int>)] = []
        var at = 12
        while at + 8 <= webp.count {
            let size = webp[at + 4..<at + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
            chunks.append((String(decoding: webp[at..<at + 4], as: UTF8.self), at..<min(webp.count, at + 8 + size + size % 2)))
            at += 8 + size + size % 2
        }
        let exif = try #require(chunks.first { $0.name == "EXIF" }, "\(chunks.map(\.name))")
        #expect(chunks.first?.name == "VP8X" && webp[20] & 0x08 != 0, "the EXIF flag")
        var twice = webp + webp[exif.range]
        let riffSize = UInt32(twice.count - 8)
        twice.replaceSubrange(4..<8, with: withUnsafeBytes(of: riffSize.littleEndian) { Array($0) })
        var unflagged = webp
        unflagged[20] &= ~0x08
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        try Data(twice).write(to: URL(fileURLWithPath: dir.join("in/twice.webp")))
        try Data(unflagged).write(to: URL(fileURLWithPath: dir.join("in/unflagged.webp")))
        try Data(webp).write(to: URL(fileURLWithPath: dir.join("in/own.webp")))
        let r = try kiln(["export", dir.join("in"), "-o", dir.join("out"), "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = Events(r.stdoutLines).named("warning").map { $0[string: "message"] }
        #expect(warnings.contains { $0.contains("twice.webp: EXIF: more than one EXIF chunk; the first is read") }, "\(warnings)")
        #expect(warnings.contains { $0.contains("unflagged.webp: EXIF: the VP8X header does not flag this chunk, so it is not read") },
                "\(warnings)")
        #expect(!warnings.contains { $0.contains("own.webp") }, "kiln's own WebP reads clean: \(warnings)")
        #expect(try ImageTools.identify(dir.join("out/twice.webp"), "%w %h") == "4 6", "the first EXIF turns it")
        #expect(try ImageTools.identify(dir.join("out/unflagged.webp"), "%w %h") == "6 4", "as libwebp reads it: not turned")
    }

    /// The planning reads every input's header before the first image: a WebP's from its first 64 KiB, not the whole
    /// file (40 WebPs of 13 MB took 3.2 s to plan), the same header as the whole file gives; a file cut short still
    /// gives its header there and fails alone when it is decoded.
    @Test(.enabled(if: tools, "needs ImageMagick and libwebp's tools"))
    func aWebPsHeaderComesFromItsFirstBytes() throws {
        let dir = try makeInputs()
        try ImageTools.run("convert", ["-seed", "9", "-size", "1200x900", "plasma:", "-depth", "8", "PNG24:" + dir.join("big.png")])
        try ImageTools.run("cwebp", ["-quiet", "-q", "95", dir.join("big.png"), "-o", dir.join("big.webp")])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: dir.join("big.webp")))
        try #require(bytes.count > 2 * 65536, "the file must be larger than what the header is read from")
        let header = try ImageCodecs.header(contentsOf: dir.join("big.webp"))
        let whole = try ImageCodecs.reader(path: dir.join("big.webp"), bytes: [UInt8](bytes), limits: DecodingLimits()).header
        #expect(header == whole && header.width == 1200 && header.height == 900, "\(header) against \(whole)")
        // An extended file whose ICC profile runs past the first 64 KiB: libwebp answers from the VP8X header alone,
        // without the format, so the header comes from the whole file (it said lossy of a lossless image).
        try Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: URL(fileURLWithPath: dir.join("big.icc")))
        try ImageTools.run("cwebp", ["-quiet", "-lossless", dir.join("in/photo.png"), "-o", dir.join("lossless.webp")])
        try ImageTools.run("webpmux", ["-set", "icc", dir.join("big.icc"), dir.join("lossless.webp"), "-o", dir.join("icc.webp")])
        let extended = try ImageCodecs.header(contentsOf: dir.join("icc.webp"))
        let icc = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("icc.webp"))))
        let read = try ImageCodecs.reader(path: dir.join("icc.webp"), bytes: icc, limits: DecodingLimits()).header
        #expect(extended.isLossless && extended == read, "\(extended) against \(read)")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: dir.join("cut.webp")))
        #expect((try? ImageCodecs.header(contentsOf: dir.join("cut.webp")))?.width == 1200)
        let r = try export([dir.join("cut.webp"), dir.join("big.webp"), "-o", dir.join("out"), "--format", "png"])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(Events(r.stdoutLines).files("failed").first?[string: "error"].contains("truncated WebP") == true, "\(r.stdout)")
        #expect(Events(r.stdoutLines).files("written").count == 1)
    }

    /// Shrink-on-load, as a JPEG's: a fit to 250 of an opaque 2000 × 1500 WebP has libwebp average 4 × 4 blocks as it
    /// decodes (it decoded whole, then resized: an 8000×6000 one fitted to 800 held 433 MB, now 65). It must not
    /// differ visibly from the same pixels decoded whole and resized, nor in size; nor one whose sides no factor
    /// divides (2001 × 1499: libwebp spreads it over 501 × 375 pixels), which was decoded whole. An image with alpha,
    /// whose colour libwebp would average straight, is decoded whole: the same pixels.
    @Test(.enabled(if: tools, "needs ImageMagick and libwebp's tools"))
    func shrinkOnLoadOfAnOpaqueWebPLooksLikeAFullDecodeAndResize() throws {
        let dir = try makeInputs()
        try ImageTools.run("convert", ["-seed", "7", "-size", "2000x1500", "plasma:", "-blur", "0x1", "-depth", "8",
                                       "PNG24:" + dir.join("big.png")])
        try ImageTools.run("cwebp", ["-quiet", "-q", "92", dir.join("big.png"), "-o", dir.join("in/big.webp")])
        try ImageTools.run("convert", [dir.join("big.png"), "-crop", "2001x1499+0+0", "-extent", "2001x1499", "PNG24:" + dir.join("odd.png")])
        try ImageTools.run("cwebp", ["-quiet", "-q", "92", dir.join("odd.png"), "-o", dir.join("in/odd.webp")])
        try ImageTools.run("convert", ["-size", "2000x1500", "xc:none", "-fill", "rgba(0,128,255,0.6)", "-draw", "circle 1000,750 1000,100",
                                       "-depth", "8", "PNG32:" + dir.join("a.png")])
        try ImageTools.run("cwebp", ["-quiet", "-q", "92", "-exact", dir.join("a.png"), "-o", dir.join("in/alphabig.webp")])
        // The same pixels decoded whole, stored losslessly: what a full decode resizes.
        let whole = try export([dir.join("in/big.webp"), dir.join("in/odd.webp"), dir.join("in/alphabig.webp"), "-o",
                                dir.join("whole"), "--format", "png", "--level", "1"])
        #expect(whole.status == 0, "\(whole.stderr)")
        for name in ["big", "odd", "alphabig"] {
            for (input, folder) in [(dir.join("in/\(name).webp"), "from-webp"), (dir.join("whole/\(name).png"), "from-png")] {
                let r = try export([input, "-o", dir.join(folder), "--resize", "250x250", "--format", "png"])
                #expect(r.status == 0, "\(r.stderr)")
            }
        }
        for (name, size) in [("big", "250 188"), ("odd", "250 187")] {
            #expect(try ImageTools.identify(dir.join("from-webp/\(name).png"), "%w %h") == size)
            #expect(try ImageTools.identify(dir.join("from-png/\(name).png"), "%w %h") == size)
            let psnr = try ImageTools.psnr(dir.join("from-png/\(name).png"), dir.join("from-webp/\(name).png"))
            #expect(psnr >= 40 && psnr < .infinity, "\(name): \(psnr) dB against a full decode and resize (infinity: not shrunk)")
        }
        let a = try PNGDecoder.decode(contentsOf: dir.join("from-webp/alphabig.png"))
        let b = try PNGDecoder.decode(contentsOf: dir.join("from-png/alphabig.png"))
        #expect(a == b, "alphabig: decoded whole, the same pixels")
    }

    /// Under `--format same` (the default, and in place), a lossless WebP stays lossless: before, it was written
    /// lossy at quality 80 without a word (in place: 37.8 dB, and less with each run). `--quality` still asks for lossy.
    @Test(.enabled(if: tools, "needs ImageMagick and libwebp's tools"))
    func aLosslessWebPStaysLosslessInItsOwnFormat() throws {
        let dir = try makeInputs()
        func isLossless(_ path: String) throws -> Bool {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            return bytes.indices.dropLast(4).contains { bytes[$0..<($0 + 4)].elementsEqual("VP8L".utf8) }
        }
        func exact(_ path: String) throws -> Bool {
            try ImageTools.run("dwebp", ["-quiet", path, "-o", path + ".png"])
            return try ImageTools.psnr(dir.join("in/alpha.png"), path + ".png") == .infinity
        }
        let same = try export([dir.join("in/lossless.webp"), dir.join("in/lossy.webp"), "-o", dir.join("same")])
        #expect(same.status == 0, "\(same.stderr)")
        #expect(try isLossless(dir.join("same/lossless.webp")) && exact(dir.join("same/lossless.webp")))
        #expect(try !isLossless(dir.join("same/lossy.webp")), "a lossy input stays lossy")
        let asked = try export([dir.join("in/lossless.webp"), "-o", dir.join("asked"), "--quality", "80"])
        #expect(asked.status == 0, "\(asked.stderr)")
        #expect(try !isLossless(dir.join("asked/lossless.webp")), "--quality asks for lossy")
        try FileManager.default.createDirectory(atPath: dir.join("place"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: dir.join("in/lossless.webp"), toPath: dir.join("place/art.webp"))
        let inPlace = try export([dir.join("place/art.webp"), "--in-place"])
        #expect(inPlace.status == 0, "\(inPlace.stderr)")
        #expect(try isLossless(dir.join("place/art.webp")) && exact(dir.join("place/art.webp")))
    }

    /// Must-show 3 (on made images): a lossless WebP round trip is pixel-exact; lossy output decodes with dwebp.
    @Test(.enabled(if: tools, "needs ImageMagick and libwebp's tools"))
    func losslessIsExactAndLossyDecodesWithDwebp() throws {
        let dir = try makeInputs()
        // With --lossless, --quality is how hard libwebp works: exact at the fastest too.
        for (folder, effort) in [("lossless", [String]()), ("fastest", ["--quality", "1"])] {
            let lossless = try export([dir.join("in"), "-o", dir.join(folder), "--format", "webp", "--lossless"] + effort)
            #expect(lossless.status == 0, "\(lossless.stderr)")
            for (input, output) in [("photo.png", "photo.webp"), ("alpha.png", "alpha.webp"), ("lossless.webp", "lossless.webp")] {
                let decoded = dir.join(folder + "/" + output + ".png")
                try ImageTools.run("dwebp", ["-quiet", dir.join(folder + "/" + output), "-o", decoded])
                #expect(try ImageTools.psnr(dir.join("in/" + input), decoded) == .infinity, "\(folder): \(input) → \(output)")
            }
        }
        // Every sample the same, alpha and the colour under transparent pixels included.
        let same = try ImageTools.run("compare", ["-metric", "AE", dir.join("in/alpha.png"), dir.join("lossless/alpha.webp.png"),
                                                  "null:"])
        #expect(same.stderr.hasPrefix("0"), "\(same.stderr)")

        let lossy = try export([dir.join("in"), "-o", dir.join("lossy"), "--format", "webp"])
        #expect(lossy.status == 0, "\(lossy.stderr)")
        for name in ["photo", "alpha", "lossy", "lossless"] {
            let decoded = dir.join("lossy/\(name).png")
            try ImageTools.run("dwebp", ["-quiet", dir.join("lossy/\(name).webp"), "-o", decoded])
            #expect(try ImageTools.identify(decoded, "%w %h") == (name == "alpha" || name == "lossless" ? "64 48" : "160 120"))
        }
        #expect(try ImageTools.psnr(dir.join("in/photo.png"), dir.join("lossy/photo.png")) >= 30)
        // Quality 80 by default, and --quality changes it.
        let small = try export([dir.join("in/photo.png"), "-o", dir.join("small"), "--format", "webp", "--quality", "20"])
        #expect(small.status == 0, "\(small.stderr)")
        let sizes = try [dir.join("lossy/photo.webp"), dir.join("small/photo.webp")].map {
            try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int ?? 0
        }
        #expect(sizes[1] < sizes[0], "\(sizes)")
    }

    /// `--effort` (libwebp's method, cwebp's -m; vips' and sharp's effort) makes a lossy or lossless WebP smaller the
    /// harder libwebp works, lossless still exact; it is a recipe's `output.effort`, kept by a resume, refused out of
    /// range or for another format, and said in the subtitle. Before, every WebP was written at libwebp's default 4
    /// (cwebp -m 6 made a photo with alpha a quarter smaller).
    @Test(.enabled(if: tools, "needs ImageMagick and libwebp's tools"))
    func effortTradesTimeForSize() throws {
        let dir = try makeInputs()
        try ImageTools.run("convert", ["-seed", "9", "-size", "600x400", "plasma:fractal", "-blur", "0x1", "(", "-size", "600x400",
                                       "radial-gradient:", ")", "-alpha", "off", "-compose", "copy_opacity", "-composite",
                                       "PNG32:" + dir.join("in/fade.png")])
        func size(_ path: String) throws -> Int { try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0 }
        for lossless in [false, true] {
            var sizes: [Int] = []
            for effort in [0, 6] {
                let folder = dir.join("\(lossless ? "lossless" : "lossy")-\(effort)")
                let r = try export([dir.join("in/fade.png"), "-o", folder, "--format", "webp", "--effort", "\(effort)"]
                                   + (lossless ? ["--lossless"] : []))
                #expect(r.status == 0, "\(r.stderr)")
                #expect(Events(r.stdoutLines).named("start").first?[string: "subtitle"].contains("effort \(effort)") == true,
                        "\(r.stdout)")
                sizes.append(try size(folder + "/fade.webp"))
                if lossless {
                    try ImageTools.run("dwebp", ["-quiet", folder + "/fade.webp", "-o", folder + "/fade.png"])
                    #expect(try ImageTools.psnr(dir.join("in/fade.png"), folder + "/fade.png") == .infinity, "effort \(effort)")
                }
            }
            #expect(sizes[1] < sizes[0] * 9 / 10, "lossless \(lossless): effort 0, 6: \(sizes) bytes")
        }
        // A recipe's, and a resume keeps it: a stopped job's rest is written as its start would have.
        let recipe = dir.join("r.json")
        try Data(#"{"operations":[],"output":{"format":"webp","effort":6}}"#.utf8).write(to: URL(fileURLWithPath: recipe))
        let byRecipe = try export([dir.join("in/fade.png"), "-o", dir.join("recipe"), "--recipe", recipe])
        #expect(byRecipe.status == 0, "\(byRecipe.stderr)")
        #expect(FileManager.default.contentsEqual(atPath: dir.join("recipe/fade.webp"), andPath: dir.join("lossy-6/fade.webp")))
        let stopped = try kiln(["export", dir.join("in"), "-o", dir.join("resumed"), "--format", "webp", "--effort", "6",
                                "--jobs", "1", "--stall-timeout", "1", "--device", "cpu", "--progress", "none"],
                               environment: ["KILN_TEST_STALL_AFTER": "1"])
        #expect(stopped.status == 75, "\(stopped.stderr)")
        #expect(try kiln(["resume", dir.join("resumed"), "--progress", "none"]).status == 0)
        #expect(FileManager.default.contentsEqual(atPath: dir.join("resumed/fade.webp"), andPath: dir.join("lossy-6/fade.webp")),
                "the resume wrote it at effort 6")
        // Refused out of its range, and for a PNG output; a recipe's `effort` of 9 names its key.
        for (arguments, message) in [(["--format", "webp", "--effort", "7"], "--effort must be 0-6, not 7"),
                                     (["--format", "png", "--effort", "3"], "--effort applies to WebP output, not PNG")] {
            let r = try export([dir.join("in/fade.png"), "-o", dir.join("refused")] + arguments)
            #expect(r.status == 64 && r.stderr.contains(message), "\(r.stderr)")
        }
        try Data(#"{"operations":[],"output":{"format":"webp","effort":9}}"#.utf8).write(to: URL(fileURLWithPath: recipe))
        let badRecipe = try export([dir.join("in/fade.png"), "-o", dir.join("refused"), "--recipe", recipe])
        #expect(badRecipe.status == 64 && badRecipe.stderr.contains("output.effort: must be 0-6, not 9"), "\(badRecipe.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.join("refused")), "nothing written")
    }

    /// Before: a cut WebP was "corrupt WebP: the RIFF container is damaged" and a damaged one of full
    /// length "truncated WebP: the data ends before the image does", the reasons the wrong way round.
    @Test(.enabled(if: tools, "needs ImageMagick and libwebp's tools"))
    func aCutWebPIsTruncatedADamagedOneCorrupt() throws {
        let dir = try makeInputs()
        let whole = try Data(contentsOf: URL(fileURLWithPath: dir.join("in/lossy.webp")))
        try FileManager.default.createDirectory(atPath: dir.join("bad"), withIntermediateDirectories: true)
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: dir.join("bad/cut.webp")))
        // Full length, its VP8 frame's first partition said longer than the file: libwebp finds the data short.
        var damaged = [UInt8](whole)
        let frame = try #require(damaged.indices.dropLast(4).first { damaged[$0..<($0 + 4)].elementsEqual("VP8 ".utf8) }) + 8
        damaged[frame + 1] = 0xFF
        damaged[frame + 2] = 0xFF
        try Data(damaged).write(to: URL(fileURLWithPath: dir.join("bad/damaged.webp")))
        try FileManager.default.copyItem(atPath: dir.join("in/photo.png"), toPath: dir.join("bad/photo.png"))
        let r = try kiln(["export", dir.join("bad"), "-o", dir.join("out"), "--device", "cpu", "--progress", "none"])
        #expect(r.status == 1)
        #expect(r.stderr.contains(dir.join("bad/cut.webp") + ": truncated WebP: the file ends after \(whole.count / 2) of the "
                                  + "\(whole.count) bytes its RIFF header declares"), "\(r.stderr)")
        #expect(r.stderr.contains(dir.join("bad/damaged.webp") + ": corrupt WebP"), "\(r.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: dir.join("out")).filter { !$0.hasPrefix(".") }
        #expect(written == ["photo.png"], "\(written)")
    }

    /// Before: a WebP was read whole, bytes past its RIFF container too: one with 1 GiB appended held 2 GiB and
    /// failed as needing 1 GB more than `--memory` allowed. Only its container is read (libwebp reads no further).
    @Test(.enabled(if: tools, "needs ImageMagick and libwebp's tools"))
    func bytesAfterTheContainerAreNotRead() throws {
        let dir = try makeInputs()
        let path = dir.join("in/lossy.webp")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 1 << 30)  // a hole: no disk used
        try handle.close()
        let r = try kiln(["export", path, "-o", dir.join("out"), "--memory", "200M", "--device", "cpu", "--progress", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.join("out/lossy.webp")))
    }

    @Test(.enabled(if: tools, "needs ImageMagick and libwebp's tools"))
    func anAnimationIsRefusedNamingTheFile() throws {
        let dir = try makeInputs()
        try ImageTools.run("convert", ["-size", "16x16", "xc:red", dir.join("red.png")])
        try ImageTools.run("convert", ["-size", "16x16", "xc:blue", dir.join("blue.png")])
        try ImageTools.run("img2webp", ["-loop", "0", dir.join("red.png"), "-d", "100", dir.join("blue.png"), "-o",
                                        dir.join("in/moving.webp")])
        let r = try kiln(["export", dir.join("in"), "-o", dir.join("out"), "--device", "cpu", "--progress", "none"])
        #expect(r.status == 1)
        #expect(r.stderr.contains(dir.join("in/moving.webp") + ": unsupported WebP: an animated WebP"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.join("out/moving.webp")))
        #expect(FileManager.default.fileExists(atPath: dir.join("out/photo.png")))
    }

    /// A container at fault was "the bitstream is corrupt (libwebp status 3)": now it is said how, in webpinfo's
    /// terms (a VP8X canvas other than the image's size, a RIFF size that cuts a chunk short).
    @Test(.enabled(if: tools, "needs ImageMagick and libwebp's tools"))
    func aDamagedContainerIsSaidHow() throws {
        let dir = try makeInputs()
        try FileManager.default.createDirectory(atPath: dir.join("bad"), withIntermediateDirectories: true)
        try Data(repeating: 7, count: 300).write(to: URL(fileURLWithPath: dir.join("x.icc")))
        try ImageTools.run("webpmux", ["-set", "icc", dir.join("x.icc"), dir.join("in/lossy.webp"), "-o", dir.join("vp8x.webp")])
        var canvas = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("vp8x.webp"))))
        try #require(canvas[12..<16].elementsEqual("VP8X".utf8))
        canvas.replaceSubrange(24..<27, with: [9, 0, 0])  // a canvas 10 wide
        try Data(canvas).write(to: URL(fileURLWithPath: dir.join("bad/canvas.webp")))
        var riff = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("in/lossy.webp"))))
        riff.replaceSubrange(4..<8, with: [100, 0, 0, 0])
        try Data(riff).write(to: URL(fileURLWithPath: dir.join("bad/riff.webp")))
        let r = try kiln(["export", dir.join("bad"), "-o", dir.join("out"), "--progress", "json"])
        #expect(r.status == 1)
        let errors = Dictionary(uniqueKeysWithValues: Events(r.stdoutLines).files("failed").map {
            (($0[string: "input"] as NSString).lastPathComponent, $0[string: "error"])
        })
        #expect(errors["canvas.webp"]?.hasPrefix("corrupt WebP: the VP8X header says 10 × ") == true, "\(errors)")
        #expect(errors["riff.webp"]?.hasPrefix("corrupt WebP: the RIFF header declares 108 bytes, fewer than the file's ") == true,
                "\(errors)")
    }

    @Test(.enabled(if: tools && ImageTools.has("vips"), "needs ImageMagick, libwebp's tools and vips"))
    func overWebPsSizeLimitIsAPerImageError() throws {
        let dir = try makeInputs()
        // libvips makes it (ImageMagick's policy refuses to).
        try ImageTools.run("vips", ["black", dir.join("in/wide.png"), "16400", "2"])
        let r = try kiln(["export", dir.join("in"), "-o", dir.join("out"), "--format", "webp", "--device", "cpu",
                          "--progress", "none"])
        #expect(r.status == 1)
        // Said as the output's limit: before, "unsupported WebP: …" read as if the PNG input were taken for a WebP.
        #expect(r.stderr.contains(dir.join("in/wide.png") + ": cannot be written as WebP: 16400 × 2 pixels, and a WebP holds at "
                                  + "most 16383 × 16383"), "\(r.stderr)")
        let made = try FileManager.default.contentsOfDirectory(atPath: dir.join("out")).filter { $0 != ".kiln" }.sorted()
        #expect(made.count == 4 && !made.contains("wide.webp"), "\(made)")
        // Said before the memory it would take is counted: "needs about 341 MB …, more than --memory 200 MB allows"
        // sent the user to raise --memory, only to meet this limit next.
        try ImageTools.run("vips", ["black", dir.join("tall.png"), "1500", "16400"])
        let tall = try kiln(["export", dir.join("tall.png"), "-o", dir.join("tall"), "--format", "webp", "--memory", "200M",
                             "--device", "cpu", "--progress", "none"])
        #expect(tall.status == 1)
        #expect(tall.stderr.contains("cannot be written as WebP: 1500 × 16400 pixels") && !tall.stderr.contains("memory"),
                "\(tall.stderr)")
    }

    /// Must-show 7 with WebP: a folder of PNG, JPEG and WebP, `--format same` and each `--format`.
    @Test(.enabled(if: tools, "needs ImageMagick and libwebp's tools"),
          arguments: [("same", ["a.png", "b.jpg", "c.webp"]), ("png", ["a.png", "b.png", "c.png"]),
                      ("jpeg", ["a.jpg", "b.jpg", "c.jpg"]), ("webp", ["a.webp", "b.webp", "c.webp"])])
    func aMixedFolderGetsTheRightFormats(format: String, names: [String]) throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        // Plasma softened, as a photo is: its grain alone would cost a lossy encoder a few dB.
        try ImageTools.run("convert", ["-seed", "3", "-size", "120x90", "plasma:", "-blur", "0x1", "-depth", "8", dir.join("in/a.png")])
        try ImageTools.run("convert", ["-seed", "4", "-size", "90x120", "plasma:", "-blur", "0x1", "-quality", "95", dir.join("in/b.jpg")])
        try ImageTools.run("cwebp", ["-quiet", "-q", "90", dir.join("in/a.png"), "-o", dir.join("in/c.WEBP")])
        let r = try export([dir.join("in"), "-o", dir.join("out"), "--format", format])
        #expect(r.status == 0, "\(r.stderr)")
        let made = try FileManager.default.contentsOfDirectory(atPath: dir.join("out")).filter { $0 != ".kiln" }.sorted()
        #expect(made == names)
        // The subtitle names what the outputs are written as: under `same`, each format present.
        let written = ["same": "PNG level 6, JPEG quality 85 4:2:0, WebP quality 80 (lossless inputs lossless)", "png": "PNG level 6",
                       "jpeg": "JPEG quality 85 4:2:0", "webp": "WebP quality 80"][format]!
        #expect(Events(r.stdoutLines).named("start").first?[string: "subtitle"] == written + " · CPU (--device cpu)")
        for (input, output) in zip(["a.png", "b.jpg", "c.WEBP"], names) {
            let kind = output.hasSuffix(".png") ? "PNG" : output.hasSuffix(".jpg") ? "JPEG" : "WEBP"
            #expect(try ImageTools.identify(dir.join("out/" + output)) == (input == "b.jpg" ? "90 120 " : "120 90 ") + kind)
            var decoded = dir.join("out/" + output)
            if kind == "WEBP" {
                decoded += ".png"
                try ImageTools.run("dwebp", ["-quiet", dir.join("out/" + output), "-o", decoded])
            }
            var original = dir.join("in/" + input)
            if input.hasSuffix(".WEBP") {
                original = dir.join("c.png")
                try ImageTools.run("dwebp", ["-quiet", dir.join("in/" + input), "-o", original])
            }
            let psnr = try ImageTools.psnr(original, decoded)
            #expect(psnr >= 30, "\(input) → \(output): \(psnr) dB")
        }
    }
}
