import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// Hostile inputs through the CLI: never a crash, never a hang, never an output
/// for a failed input, never a large allocation for a huge declared size.
@Suite struct BadInputTests {
    @Test func hugeDeclaredSizeIsRefusedBeforeAnyLargeAllocation() throws {
        let dir = try TemporaryDirectory()
        let png = PNGBytes.minimalPNG(width: 100_000, height: 100_000)
        try Data(png).write(to: URL(fileURLWithPath: dir.join("huge.png")))
        let (r, peakKiB) = try exportMeasured(dir.join("huge.png"), in: dir)
        #expect(r.status == 1)
        let failed = Events(r.stdoutLines).files("failed")
        #expect(failed.count == 1)
        let error = failed.first?["error"] as? String ?? ""
        #expect(error.contains("100000"), "the reason names the size: \(error)")
        #expect(peakKiB < 100 * 1024, "peak RSS \(peakKiB) KiB")
        #expect(!FileManager.default.fileExists(atPath: dir.join("out/huge.png")))
    }

    /// `kiln export FILE -o DIR/out --progress json` + `options`, and its peak RSS in KiB: through GNU time, which
    /// forks kiln from its own small process (the ru_maxrss of a child spawned straight from this large test
    /// runner would include the runner's memory, since Linux carries it across exec).
    private func exportMeasured(_ file: String, in dir: TemporaryDirectory, _ options: [String] = []) throws
        -> (ChildProcess.Outcome, Int) {
        let rssFile = dir.join("rss")
        let r = try ProcessRunner.run("/usr/bin/time", ["-o", rssFile, "-f", "%M", Paths.kiln, "export", file,
                                                        "--output", dir.join("out"), "--progress", "json"] + options,
                                      environment: ["KILN_RUNTIME_DIR": dir.join("slots")])
        // The last line is the figure ("Command exited with non-zero status 1" may precede it).
        let peakKiB = ((try? String(contentsOfFile: rssFile, encoding: .utf8)) ?? "")
            .split(separator: "\n").last.flatMap { Int($0) } ?? Int.max
        return (r, peakKiB)
    }

    /// Before: the header of a PNG that libpng would not read (8/16-bit, not interlaced) was read by opening the
    /// fast decoder, which made its two rows at once: a 69-byte file declaring 500000000×1 RGB held 1.5 GB (one
    /// row zeroed) while `--max-pixels 100` or `--memory` refused it, and four of them at once 5.8 GB.
    @Test func aWideImageIsRefusedWithoutMakingARow() throws {
        let dir = try TemporaryDirectory()
        try Data(PNGBytes.minimalPNG(width: 500_000_000, height: 1, colorType: 2)).write(to: URL(fileURLWithPath: dir.join("wide.png")))
        for options in [["--max-pixels", "100"], ["--memory", "300M"]] {
            let (r, peakKiB) = try exportMeasured(dir.join("wide.png"), in: dir, options)
            #expect(r.status == 1, "\(options): \(r.stderr)")
            let error = Events(r.stdoutLines).files("failed").first?["error"] as? String ?? ""
            #expect(error.contains(options[0] == "--max-pixels" ? "500000000×1" : "more than --memory 300 MB"), "\(options): \(error)")
            #expect(peakKiB < 200 * 1024, "\(options): peak RSS \(peakKiB) KiB")
        }
    }

    /// Before: a PNG declaring 2^31 - 1 pixels each way (67 bytes) crashed the whole job with an arithmetic
    /// overflow while its cost was estimated, before any image was written, and again on every resume;
    /// two of them in a sharded job would overflow the plan's sum of pixels. Now each fails alone at its header.
    @Test func aHeaderOfTwoToTheSixtyTwoPixelsFailsAloneInAPlainAndAShardedJob() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        try Data(PNGBytes.minimalPNG(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF, colorType: 2))
            .write(to: URL(fileURLWithPath: dir.join("in/huge-rgb.png")))
        try Data(PNGBytes.minimalPNG(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF, bitDepth: 16))
            .write(to: URL(fileURLWithPath: dir.join("in/huge-rgba16.png")))
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("in/good.png"))
        let environment = ["KILN_RUNTIME_DIR": dir.join("slots")]
        let r = try kiln(["export", dir.join("in"), "-o", dir.join("out"), "--progress", "json"], environment: environment)
        #expect(r.status == 1, "\(r.stderr)")
        let events = Events(r.stdoutLines)
        #expect(events.files("written").count == 1)
        let failed = events.files("failed")
        #expect(failed.count == 2)
        for event in failed {
            #expect((event["error"] as? String ?? "").contains("2147483647"), "\(event)")
        }
        #expect(FileManager.default.fileExists(atPath: dir.join("out/good.png")))
        var written = 0
        for shard in 0...1 {
            let s = try kiln(["export", dir.join("in"), "-o", dir.join("sharded"), "--shard", "\(shard)/2", "--progress", "json"],
                             environment: environment)
            #expect(s.status == 0 || s.status == 1, "shard \(shard): \(s.stderr)")
            #expect(Events(s.stdoutLines).all.last?["event"] as? String == "end", "shard \(shard): \(s.stdout)")
            written += Events(s.stdoutLines).files("written").count
        }
        #expect(written == 1)
    }

    /// A start damaged after a format's first bytes is that format's, said in its reader's words alone: before, a
    /// JPEG's SOI followed by junk got every reader's reason ("not a PNG file (bad signature) …; truncated JPEG …;
    /// not a WebP file"), and so did a PNG whose signature's line endings were converted.
    @Test func aDamagedStartIsItsFormatsAlone() throws {
        let dir = try TemporaryDirectory()
        let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Paths.sampleData + "/rgb8.png")))
        try Data([0xFF, 0xD8] + [UInt8](repeating: 0, count: 4096)).write(to: URL(fileURLWithPath: dir.join("soi.jpg")))
        try Data(png.prefix(4) + [0x0A, 0x1A, 0x0A] + png.dropFirst(8)).write(to: URL(fileURLWithPath: dir.join("unix.png")))
        let r = try kiln(["export", dir.join("soi.jpg"), dir.join("unix.png"), "-o", dir.join("out"), "--progress", "json"])
        #expect(r.status == 1)
        // The events come as the images finish, in either order.
        let failed = Events(r.stdoutLines).files("failed")
        let errors = Dictionary(failed.map { (($0["input"] as? String ?? "") as NSString).lastPathComponent }
                                    .enumerated().map { ($1, failed[$0]["error"] as? String ?? "") }, uniquingKeysWith: { $1 })
        #expect(errors.count == 2 && errors.values.allSatisfy { !$0.contains(";") }, "one reason each: \(errors)")
        #expect(errors["soi.jpg"]?.contains("JPEG") == true && errors["unix.png"]?.contains("PNG") == true, "\(errors)")
    }

    /// An empty file says so once: before, "not a PNG file: the input is empty; not a JPEG file: Empty input
    /// file; not a WebP file (no RIFF/WEBP header)", each reader's reason in turn.
    @Test func anEmptyFileSaysItIsEmpty() throws {
        let dir = try TemporaryDirectory()
        _ = FileManager.default.createFile(atPath: dir.join("empty.png"), contents: Data())
        _ = FileManager.default.createFile(atPath: dir.join("blank"), contents: Data())
        let r = try kiln(["export", dir.join("empty.png"), dir.join("blank"), "-o", dir.join("out"), "--progress", "json"])
        #expect(r.status == 1)
        let errors = Events(r.stdoutLines).files("failed").map { $0["error"] as? String ?? "" }
        #expect(errors == ["the file is empty (0 bytes)", "the file is empty (0 bytes)"], "\(errors)")
    }

    /// A whole file shorter than a format's signature and its start (a JPEG of two bytes, "\x89PNG", "RIFF") is named
    /// as that format, cut: before, every reader's reason in turn ("not a PNG file (bad signature) …; truncated JPEG …;
    /// not a WebP file"), and a first attempt took libjpeg's "Premature end" of a one-byte "R" for a JPEG's. A file
    /// no format begins keeps every reason.
    @Test func aFileCutInItsSignatureIsNamedByItsFormat() throws {
        let dir = try TemporaryDirectory()
        let files: [(String, [UInt8], String?)] = [
            ("two.jpg", [0xFF, 0xD8], "truncated JPEG: the file ends after 2 bytes, inside the JPEG signature"),
            ("four.png", [0x89, 0x50, 0x4E, 0x47], "truncated PNG: the file ends after 4 bytes, inside the PNG signature"),
            ("riff.webp", Array("RIFF".utf8), "truncated WebP: the file ends after 4 bytes, inside the WebP signature"),
            ("r.webp", Array("R".utf8), "truncated WebP: the file ends after 1 byte, inside the WebP signature"),
            ("x.png", Array("xyz".utf8), nil),
        ]
        for (name, bytes, _) in files {
            _ = FileManager.default.createFile(atPath: dir.join(name), contents: Data(bytes))
        }
        let r = try kiln(["export"] + files.map { dir.join($0.0) } + ["-o", dir.join("out"), "--progress", "json"])
        #expect(r.status == 1)
        let errors = Dictionary(uniqueKeysWithValues: Events(r.stdoutLines).files("failed").map {
            (($0[string: "input"] as NSString).lastPathComponent, $0[string: "error"])
        })
        for (name, _, said) in files {
            if let said {
                #expect(errors[name] == said, "\(name): \(errors)")
            } else {
                #expect(errors[name]?.components(separatedBy: "; ").count == 3, "\(name): \(errors)")
                // libjpeg's reason once: it said "not a JPEG file: Not a JPEG file: starts with 0x78 0x79".
                #expect(errors[name]?.contains("; not a JPEG file: starts with 0x78 0x79;") == true, "\(name): \(errors)")
            }
        }
    }

    @Test func maxPixelsOptionIsHonoured() throws {
        let dir = try TemporaryDirectory()
        let r = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", dir.path, "--max-pixels", "1000",
                          "--progress", "json"])
        #expect(r.status == 1)
        #expect(Events(r.stdoutLines).files("failed").count == 1)
    }

    /// Truncations of a multi-megabyte PNG and 1,000 seeded corruptions of
    /// PngSuite files, all in one batch: the batch finishes, every failure is
    /// named with a reason and has no output, every output written is valid.
    @Test func truncatedAndCorruptedFilesNeverCrashHangOrLeaveOutputs() throws {
        let seed = TestSeed()
        var rng = seed.generator
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)

        // A noisy 1200×900 RGBA image at level 1: several megabytes.
        var noise = [UInt8](repeating: 0, count: 1200 * 900 * 4)
        for i in noise.indices { noise[i] = UInt8(truncatingIfNeeded: rng.next()) }
        let big = try PNGEncoder.encode(PixelBuffer(width: 1200, height: 900, depth: .eight, bytes: noise),
                                        options: .init(level: 1))
        #expect(big.count > 3_000_000)
        var offsets = Set([1, 7, 8, 12, 16, 29, 33, 37, 41, big.count - 12, big.count - 4, big.count - 1])
        while offsets.count < 60 { offsets.insert(Int.random(in: 1..<big.count, using: &rng)) }
        for offset in offsets {
            try Data(big[..<offset]).write(to: URL(fileURLWithPath: dir.join("in/t\(offset).png")))
        }

        let suite = try Fixtures.validPngSuiteFiles()
        for i in 0..<1000 {
            let name = suite[Int.random(in: 0..<suite.count, using: &rng)]
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Paths.pngSuite + "/" + name)))
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: bytes[at] ^= UInt8.random(in: 1...255, using: &rng)
                case 1: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...64, using: &rng)))
                case 2: bytes.insert(contentsOf: (0..<Int.random(in: 1...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }, at: at)
                default: bytes[at] = [0x00, 0xFF, 0x7F, 0x80].randomElement(using: &rng)!
                }
                if bytes.isEmpty { bytes = [0] }
            }
            try Data(bytes).write(to: URL(fileURLWithPath: dir.join("in/c\(i)-\(name)")))
        }

        let r = try kiln(["export", dir.join("in"), "--output", dir.join("out"), "--progress", "json"],
                         timeout: .seconds(600))
        #expect(r.signal == nil && !r.timedOut, "\(seed): kiln crashed or hung: \(r.stderr.suffix(2000))")
        #expect(r.status == 1, "\(seed)")
        let events = Events(r.stdoutLines)
        #expect(events.named("file").count == offsets.count + 1000, "\(seed)")
        for event in events.files("failed") {
            let output = event["output"] as? String ?? ""
            #expect(!event[string: "error"].isEmpty, "\(seed): no reason for \(output)")
            #expect(!FileManager.default.fileExists(atPath: output), "\(seed): failed input left \(output)")
        }
        for offset in offsets {
            #expect(!FileManager.default.fileExists(atPath: dir.join("out/t\(offset).png")),
                    "\(seed): truncation at \(offset) was accepted")
        }
        let written = events.files("written").compactMap { $0["output"] as? String }
        #expect(try pngcheckFailures(written) == [], "\(seed)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.join("out/.kiln/tmp")).isEmpty)
    }
}
