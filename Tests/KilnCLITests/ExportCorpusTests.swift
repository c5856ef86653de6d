import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// `kiln export` over whole folders, as a user runs it: the PngSuite
/// conformance corpus and the project's SampleData.
@Suite struct ExportCorpusTests {
    @Test func pngSuiteExportWritesValidFilesAndReportsCorruptOnes() throws {
        _ = try Fixtures.pngSuiteFiles()  // a missing fixture fails here, by name
        let out = try TemporaryDirectory()
        let r = try kiln(["export", Paths.pngSuite, "--output", out.path, "--progress", "json"])
        #expect(r.status == 1, "stderr: \(r.stderr)")
        let events = Events(r.stdoutLines)
        #expect(events.all.first?["event"] as? String == "start")
        #expect(events.all.first?["total"] as? Int == 175)
        #expect(events.all.last?["event"] as? String == "end")
        #expect(events.all.last?["written"] as? Int == 161)
        #expect(events.all.last?["failed"] as? Int == 14)
        #expect(events.all.last?["exitCode"] as? Int == 1)

        // The 14 failures are exactly the x*.png files, each with a reason.
        let failed = events.files("failed")
        let failedNames = Set(failed.compactMap { ($0["input"] as? String).map { ($0 as NSString).lastPathComponent } })
        #expect(failedNames == Set(try Fixtures.corruptPngSuiteFiles()))
        for event in failed {
            let error = event["error"] as? String ?? ""
            #expect(error.count > 8, "vague error for \(event["input"] ?? "?"): \(error)")
            #expect(!FileManager.default.fileExists(atPath: event["output"] as? String ?? "/"))
        }

        // Every output is a valid PNG with exactly the input's pixels.
        let outputs = Paths.pngs(in: out.path)
        #expect(outputs.count == 161)
        #expect(try pngcheckFailures(outputs.map { out.join($0) }) == [])
        for name in outputs {
            let original = try PNGDecoder.decode(contentsOf: Paths.pngSuite + "/" + name)
            let exported = try PNGDecoder.decode(contentsOf: out.join(name))
            #expect(original.sameSamples(as: exported), "\(name) changed in the round trip")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.join(".kiln/tmp")).isEmpty)
    }

    @Test func sampleDataRoundTripsLosslessly() throws {
        let out = try TemporaryDirectory()
        let r = try kiln(["export", Paths.sampleData, "--output", out.path, "--progress", "json", "--level", "9"])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        let inputs = Paths.pngs(in: Paths.sampleData)
        #expect(inputs.count >= 15)
        #expect(Paths.pngs(in: out.path) == inputs)
        #expect(try pngcheckFailures(inputs.map { out.join($0) }) == [])
        for name in inputs {
            #expect(try PNGDecoder.decode(contentsOf: Paths.sampleData + "/" + name)
                    == PNGDecoder.decode(contentsOf: out.join(name)), "\(name) changed in the round trip")
        }
    }

    @Test func everyLevelWritesTheSamePixels() throws {
        let source = Paths.sampleData + "/rgba16.png"
        let original = try PNGDecoder.decode(contentsOf: source)
        var sizes: [Int] = []
        for level in [0, 1, 6, 9] {
            let out = try TemporaryDirectory()
            let r = try kiln(["export", source, "--output", out.path, "--level", String(level), "--progress", "none"])
            #expect(r.status == 0, "level \(level): \(r.stderr)")
            #expect(try PNGDecoder.decode(contentsOf: out.join("rgba16.png")) == original)
            sizes.append(try FileManager.default.attributesOfItem(atPath: out.join("rgba16.png"))[.size] as? Int ?? 0)
        }
        #expect(sizes[0] > sizes[3], "level 0 (stored) should be larger than level 9: \(sizes)")
    }

    /// The derived title and subtitle say what the job does, in a few words (SPEC §5 bar, issue 6).
    @Test func titleAndSubtitleSummarizeTheJob() throws {
        let out = try TemporaryDirectory()
        let r = try kiln(["export", Paths.sampleData, "--output", out.path, "--recipe", Paths.sampleData + "/recipe.json",
                          "--device", "cpu", "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let start = Events(r.stdoutLines).named("start").first ?? [:]
        #expect(start[string: "title"] == "Exporting \(Paths.pngs(in: Paths.sampleData).count) images")
        #expect(start[string: "subtitle"] == "fit 800×? · saturation 1.2 · sharpen 0.5 · watermark br · PNG level 6 · CPU (--device cpu)")
        let custom = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", out.join("c"), "--title", "Holiday",
                               "--subtitle", "for the web", "--device", "cpu", "--progress", "json"])
        let customStart = Events(custom.stdoutLines).named("start").first ?? [:]
        #expect(customStart[string: "title"] == "Holiday")
        #expect(customStart[string: "subtitle"] == "for the web · CPU (--device cpu)")
        // An empty text is the default (it showed an empty title, and "Holiday —  · CPU").
        let empty = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", out.join("e"), "--title", "",
                              "--subtitle", " ", "--device", "cpu", "--progress", "json"])
        let emptyStart = Events(empty.stdoutLines).named("start").first ?? [:]
        #expect(emptyStart[string: "title"] == "Exporting 1 image" && emptyStart[string: "subtitle"] == "PNG level 6 · CPU (--device cpu)",
                "\(empty.stdout)")
        // A text that starts with a dash is the text (it said "Missing value for '--title <title>'").
        let dashed = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", out.join("d"), "--title", "-x",
                               "--subtitle", "- draft", "--device", "cpu", "--progress", "json"])
        #expect(dashed.status == 0, "\(dashed.stderr)")
        let dashedStart = Events(dashed.stdoutLines).named("start").first ?? [:]
        #expect(dashedStart[string: "title"] == "-x" && dashedStart[string: "subtitle"] == "- draft · CPU (--device cpu)",
                "\(dashed.stdout)")
        // A forgotten text does not take the next option as the text (it made the title "--overwrite" and dropped
        // the option); written with `=`, a text that looks like an option is the text.
        let forgotten = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", out.join("f"), "--title", "--overwrite"])
        #expect(forgotten.status == 64 && forgotten.stderr.contains("--title has no text: --overwrite is an option"),
                "\(forgotten.stderr)")
        let short = try kiln(["export", Paths.sampleData + "/rgb8.png", "--subtitle", "-o", out.join("s")])
        #expect(short.status == 64 && short.stderr.contains("--subtitle has no text: -o is an option"), "\(short.stderr)")
        let equals = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", out.join("e"), "--title=--x", "--device", "cpu",
                               "--progress", "json"])
        #expect(Events(equals.stdoutLines).named("start").first?[string: "title"] == "--x", "\(equals.stdout)")
    }
}
