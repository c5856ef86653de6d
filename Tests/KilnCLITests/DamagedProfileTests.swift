import Foundation
import KilnTestSupport
import Testing

/// Colour metadata that cannot hold for its output: left out with a warning naming the file and why,
/// never copied into an output where it misleads every reader after it.
@Suite(.enabled(if: ImageTools.has("convert") && ImageTools.has("webpmux") && ImageTools.has("pngcheck"),
                "needs ImageMagick, webpmux and pngcheck (Scripts/setup installs them)"))
struct DamagedProfileTests {
    /// Profiles that are damaged, or sound but of the wrong colour space.
    static var profiles: [(name: String, bytes: [UInt8], reason: String)] {
        var cut = PNGBytes.iccHeader(space: "RGB ") + [UInt8](repeating: 7, count: 168)
        cut.replaceSubrange(0..<4, with: PNGBytes.bigEndian(6922))
        var tag = PNGBytes.iccHeader(space: "RGB ")
        tag.replaceSubrange(128..<132, with: PNGBytes.bigEndian(1))
        tag += Array("desc".utf8) + PNGBytes.bigEndian(5000) + PNGBytes.bigEndian(100)
        tag.replaceSubrange(0..<4, with: PNGBytes.bigEndian(UInt32(tag.count)))
        var random = SeededGenerator(seed: 7)
        let garbage = (0..<2000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        return [("cut", cut, "cut short"), ("tag", tag, "lies outside"), ("garbage", garbage, "not an ICC profile"),
                ("cmyk", PNGBytes.iccHeader(space: "CMYK"), "a CMYK colour profile cannot describe a colour output")]
    }

    /// Before: a truncated profile, one whose tag lies outside it, random bytes in a JPEG's APP2 or a WebP's
    /// ICCP, and a CMYK profile on RGB pixels were copied into PNG, JPEG and WebP outputs without a word
    /// (libpng: "iCCP: 'CMYK': invalid ICC profile color space"; exiftool: "Bad length ICC_Profile"), and a
    /// PNG's gAMA of 0 made an output pngcheck calls invalid. Only a PNG's iCCP of random bytes was caught.
    @Test func damagedOrMismatchedProfilesAreLeftOutWithAWord() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        let rows: [[UInt8]] = (0..<8).map { (y: Int) -> [UInt8] in (0..<48).map { (x: Int) -> UInt8 in UInt8((x * 5 + y * 3) % 256) } }
        try ImageTools.run("convert", ["-size", "16x8", "gradient:red-blue", dir.join("plain.jpg")])
        try ImageTools.run("convert", ["-size", "16x8", "gradient:red-blue", dir.join("plain.webp")])
        let plain = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("plain.jpg"))))
        for profile in Self.profiles {
            let iccp = PNGBytes.chunk("iCCP", Array("bad".utf8) + [0, 0] + PNGBytes.zlibStored(profile.bytes))
            try Data(PNGBytes.stored(width: 16, colorType: 2, rows: rows, before: iccp))
                .write(to: URL(fileURLWithPath: dir.join("in/p-\(profile.name).png")))
            let app2 = Array("ICC_PROFILE".utf8) + [0, 1, 1] + profile.bytes
            let length = app2.count + 2
            let segment: [UInt8] = [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + app2
            try Data(plain.prefix(2) + segment + plain.dropFirst(2)).write(to: URL(fileURLWithPath: dir.join("in/j-\(profile.name).jpg")))
            try Data(profile.bytes).write(to: URL(fileURLWithPath: dir.join("\(profile.name).icc")))
            try ImageTools.run("webpmux", ["-set", "icc", dir.join("\(profile.name).icc"), dir.join("plain.webp"),
                                           "-o", dir.join("in/w-\(profile.name).webp")])
        }
        let gama = PNGBytes.chunk("gAMA", PNGBytes.bigEndian(0))
        try Data(PNGBytes.stored(width: 16, colorType: 2, rows: rows, before: gama)).write(to: URL(fileURLWithPath: dir.join("in/gama0.png")))

        for format in ["png", "jpeg", "webp"] {
            let out = dir.join(format)
            let r = try kiln(["export", dir.join("in"), "-o", out, "--format", format, "--device", "cpu", "--progress", "json"])
            #expect(r.status == 0, "\(format): \(r.stderr)")
            let events = Events(r.stdoutLines)
            #expect(events.files("written").count == 13, "\(format): \(r.stdout)")
            let warnings = events.named("warning").compactMap { $0["message"] as? String }
            for input in try FileManager.default.contentsOfDirectory(atPath: dir.join("in")) {
                let name = input.split(separator: ".")[0]
                let output = out + "/" + name + "." + (format == "jpeg" ? "jpg" : format)
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
                if input == "gama0.png" {
                    #expect(warnings.contains { $0.contains(input) && $0.contains("gAMA: the gamma is not a positive number") },
                            "\(format): \(warnings)")
                    #expect(PNGBytes.data(of: "gAMA", in: bytes).isEmpty, "\(format): \(input)")
                    continue
                }
                let profile = Self.profiles.first { name.hasSuffix("-" + $0.name) }!
                // A CMYK profile is sound: a warning says it once per job (a later image alike is treated the same).
                let said = warnings.contains { $0.contains(input) && $0.contains(profile.reason) }
                    || (profile.name == "cmyk" && warnings.contains { $0.contains(profile.reason) })
                #expect(said, "\(format): \(input): \(warnings)")
                let held = bytes.indices.dropLast(64).contains { bytes[$0..<($0 + 64)].elementsEqual(profile.bytes.prefix(64)) }
                #expect(!held, "\(format): \(input) still holds its profile")
            }
            if format == "png" {
                let outputs = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".png") }.map { out + "/" + $0 }
                let check = try ChildProcess("/usr/bin/pngcheck", ["-q"] + outputs).wait()
                #expect(check.status == 0, "pngcheck: \(check.stdout)")
            }
        }
    }

    /// Before, a damaged ancillary chunk kiln copies (pHYs, bKGD, sBIT, sPLT, a tEXt without keyword) went into the
    /// output as it was, exit 0 and no word, and pngcheck rejected the output ("invalid pHYs length"); an eXIf, a
    /// JPEG's APP1 or a WebP's EXIF that is no TIFF stream was copied into every output (exiftool: "Malformed APP1
    /// EXIF segment"). libpng drops each with a warning; now kiln does, naming the file and the chunk.
    @Test func damagedAncillaryChunksAndEXIFAreLeftOutWithAWord() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        let rows: [[UInt8]] = (0..<8).map { (y: Int) -> [UInt8] in (0..<48).map { (x: Int) -> UInt8 in UInt8((x * 5 + y * 3) % 256) } }
        let junk = [UInt8]("garbage!".utf8) + [UInt8](repeating: 7, count: 40)
        let damaged: [(name: String, chunk: String, data: [UInt8], reason: String)] = [
            ("phys", "pHYs", [0, 0, 0, 0, 0], "pHYs: 5 bytes where its two numbers and unit take 9"),
            ("bkgd", "bKGD", [0], "bKGD: 1 byte where a background of this colour type takes 6"),
            ("bkgd16", "bKGD", [1, 0, 0, 0, 0, 0], "bKGD: a colour past the image's 8-bit samples"),
            ("sbit", "sBIT", [0, 9, 5], "sBIT: a channel's bits outside 1-8"),
            ("splt", "sPLT", Array("p".utf8) + [0, 9, 0, 0, 0, 0, 0, 0], "sPLT: sample depth 9"),
            ("text", "tEXt", [0] + Array("v".utf8), "tEXt: a keyword of 0 characters"),
            ("exif", "eXIf", junk, "eXIf: not a TIFF stream"),
        ]
        for chunk in damaged {
            try Data(PNGBytes.stored(width: 16, colorType: 2, rows: rows, before: PNGBytes.chunk(chunk.chunk, chunk.data)))
                .write(to: URL(fileURLWithPath: dir.join("in/\(chunk.name).png")))
        }
        // A JPEG's APP1 and a WebP's EXIF chunk of the same junk.
        try ImageTools.run("convert", ["-size", "16x8", "gradient:red-blue", dir.join("plain.jpg")])
        try ImageTools.run("convert", ["-size", "16x8", "gradient:red-blue", dir.join("plain.webp")])
        let plain = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("plain.jpg"))))
        let app1 = Array("Exif".utf8) + [0, 0] + junk
        let segment: [UInt8] = [0xFF, 0xE1, 0, UInt8(app1.count + 2)] + app1
        try Data(plain.prefix(2) + segment + plain.dropFirst(2)).write(to: URL(fileURLWithPath: dir.join("in/j-exif.jpg")))
        try Data(junk).write(to: URL(fileURLWithPath: dir.join("junk.exif")))
        try ImageTools.run("webpmux", ["-set", "exif", dir.join("junk.exif"), dir.join("plain.webp"), "-o", dir.join("in/w-exif.webp")])

        for format in ["png", "jpeg", "webp"] {
            let out = dir.join(format)
            let r = try kiln(["export", dir.join("in"), "-o", out, "--format", format, "--device", "cpu", "--progress", "json"])
            #expect(r.status == 0, "\(format): \(r.stderr)")
            let events = Events(r.stdoutLines)
            #expect(events.files("written").count == damaged.count + 2, "\(format): \(r.stdout)")
            let warnings = events.named("warning").compactMap { $0["message"] as? String }
            for chunk in damaged {
                #expect(warnings.contains { $0.contains("\(chunk.name).png") && $0.contains(chunk.reason) }, "\(format): \(warnings)")
            }
            #expect(warnings.contains { $0.contains("j-exif.jpg") && $0.contains("APP1: the EXIF is not a TIFF stream") }, "\(warnings)")
            #expect(warnings.contains { $0.contains("w-exif.webp") && $0.contains("EXIF: the EXIF is not a TIFF stream") }, "\(warnings)")
            for output in try FileManager.default.contentsOfDirectory(atPath: out).filter({ !$0.hasPrefix(".") }) {
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out + "/" + output)))
                let held = bytes.indices.dropLast(junk.count).contains { bytes[$0..<($0 + junk.count)].elementsEqual(junk) }
                #expect(!held, "\(format): \(output) holds the junk EXIF")
            }
            if format == "png" {
                let outputs = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".png") }.map { out + "/" + $0 }
                let check = try ChildProcess("/usr/bin/pngcheck", ["-q"] + outputs).wait()
                #expect(check.status == 0, "pngcheck: \(check.stdout)")
            }
        }
    }

    /// A palette image whose pixels name entries past its PLTE is exported as libpng draws it (those pixels opaque
    /// black) with a warning naming the file; before, without a word.
    @Test func pixelsPastThePaletteAreSaid() throws {
        let dir = try TemporaryDirectory()
        let png = PNGBytes.signature + PNGBytes.ihdr(width: 4, height: 1, colorType: 3) + PNGBytes.chunk("PLTE", [9, 9, 9])
            + PNGBytes.chunk("IDAT", PNGBytes.zlibStored([0, 0, 0, 7, 0])) + PNGBytes.chunk("IEND", [])
        try Data(png).write(to: URL(fileURLWithPath: dir.join("p.png")))
        let r = try kiln(["export", dir.join("p.png"), "-o", dir.join("out"), "--device", "cpu", "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = Events(r.stdoutLines).named("warning").compactMap { $0["message"] as? String }
        #expect(warnings == [dir.join("p.png") + ": pixels name palette entry 7, past the palette's 1 color: such pixels are drawn opaque black"],
                "\(warnings)")
        #expect(FileManager.default.fileExists(atPath: dir.join("out/p.png")))
    }

    /// A profile sound in its layout that lcms2 cannot link (an RGB header and no tags): before, `--profile`
    /// said "colours left as they were" and the output kept that profile, not the one `--profile` promises.
    /// Now the image converts as one with no profile (from --input-profile), tagged with the target.
    @Test func aProfileThatDoesNotLinkConvertsFromTheInputProfile() throws {
        let dir = try TemporaryDirectory()
        let rows: [[UInt8]] = (0..<8).map { (y: Int) -> [UInt8] in (0..<48).map { (x: Int) -> UInt8 in UInt8((x * 5 + y * 3) % 256) } }
        let iccp = PNGBytes.chunk("iCCP", Array("empty".utf8) + [0, 0] + PNGBytes.zlibStored(PNGBytes.iccHeader(space: "RGB ")))
        try Data(PNGBytes.stored(width: 16, colorType: 2, rows: rows, before: iccp)).write(to: URL(fileURLWithPath: dir.join("a.png")))
        let r = try kiln(["export", dir.join("a.png"), "-o", dir.join("out"), "--profile", "p3", "--device", "cpu", "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = Events(r.stdoutLines).named("warning").compactMap { $0["message"] as? String }
        #expect(warnings.contains { $0.contains("a.png") && $0.contains("converted from srgb instead") }, "\(warnings)")
        let output = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("out/a.png"))))
        let names = PNGBytes.data(of: "iCCP", in: output).map { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        #expect(names == ["Display P3"], "tagged with the target: \(names)")
    }

    /// A cHRM whose white point has y = 0 (or any x + y past 1) is no colour: left out with a warning, and no
    /// profile is built of it. Before, lcms2 built one (its matrix -32768 throughout), JPEG outputs carried it
    /// and `--profile` converted by it (a mean of 123 where the valid cHRM gives 177).
    @Test func chromaticitiesNoColourHasAreLeftOut() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        let rows: [[UInt8]] = (0..<8).map { (y: Int) -> [UInt8] in (0..<48).map { (x: Int) -> UInt8 in UInt8((x * 5 + y * 3) % 256) } }
        let chromaticities: [UInt32] = [31_270, 0, 64_000, 33_000, 30_000, 60_000, 15_000, 6_000]
        let chunks = PNGBytes.chunk("gAMA", PNGBytes.bigEndian(100_000)) + PNGBytes.chunk("cHRM", chromaticities.flatMap(PNGBytes.bigEndian))
        try Data(PNGBytes.stored(width: 16, colorType: 2, rows: rows, before: chunks)).write(to: URL(fileURLWithPath: dir.join("in/white0.png")))
        for format in ["png", "jpeg"] {
            let r = try kiln(["export", dir.join("in"), "-o", dir.join(format), "--format", format, "--device", "cpu", "--progress", "json"])
            #expect(r.status == 0, "\(r.stderr)")
            let warnings = Events(r.stdoutLines).named("warning").compactMap { $0["message"] as? String }
            #expect(warnings.contains { $0.contains("white0.png") && $0.contains("cHRM: chromaticities no colour has") }, "\(warnings)")
            let path = dir.join(format + "/white0." + (format == "jpeg" ? "jpg" : "png"))
            if format == "png" {
                #expect(PNGBytes.data(of: "cHRM", in: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))).isEmpty, "cHRM copied")
            } else if ImageTools.has("exiftool") {
                // The profile is built of gAMA alone, and says so in its description.
                let description = try ImageTools.run("exiftool", ["-s3", "-ProfileDescription", path]).stdout
                #expect(description.trimmingCharacters(in: .whitespacesAndNewlines) == "PNG gAMA 1", "\(description)")
            }
        }
    }
}
