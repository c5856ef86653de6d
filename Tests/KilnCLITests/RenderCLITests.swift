import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// SPEC §4.2 through the CLI: the same operations as flags or as a recipe give
/// byte-identical outputs on each device; bad recipes exit 64 naming the problem.
/// SampleData's images are 96×64, so the resize needs `--upscale` to act.
@Suite struct RenderCLITests {
    static let flags = ["--resize", "800x", "--upscale", "--saturation", "1.2", "--sharpen", "0.5",
                        "--watermark", Paths.sampleData + "/watermark.png"]
    /// The same operations in the table's order; the watermark path is relative to the recipe's directory.
    static let recipe = """
        {"operations":[{"op":"resize","width":800,"upscale":true},{"op":"adjust","saturation":1.2},
        {"op":"sharpen","amount":0.5},{"op":"watermark","file":"watermark.png"}],"output":{"level":6}}
        """

    @Test(arguments: VulkanAvailability.current.cliDevices)
    func flagsAndRecipeGiveIdenticalOutputs(_ device: String) throws {
        try onDevice(device) { try flagsAndRecipeAgree(device) }
    }

    private func flagsAndRecipeAgree(_ device: String) throws {
        let work = try TemporaryDirectory()
        let recipeDirectory = work.join("recipe")
        try FileManager.default.createDirectory(atPath: recipeDirectory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/watermark.png", toPath: recipeDirectory + "/watermark.png")
        try Self.recipe.write(toFile: recipeDirectory + "/recipe.json", atomically: true, encoding: .utf8)

        let byFlags = try kiln(["export", Paths.sampleData, "--output", work.join("flags"), "--device", device,
                                "--progress", "none"] + Self.flags)
        #expect(byFlags.status == 0, "\(byFlags.stderr)")
        let byRecipe = try kiln(["export", Paths.sampleData, "--output", work.join("recipe-out"), "--device", device,
                                 "--progress", "none", "--recipe", recipeDirectory + "/recipe.json"])
        #expect(byRecipe.status == 0, "\(byRecipe.stderr)")

        let names = Paths.pngs(in: work.join("flags"))
        #expect(names == Paths.pngs(in: Paths.sampleData))
        for name in names {
            let a = FileManager.default.contents(atPath: work.join("flags/" + name))
            let b = FileManager.default.contents(atPath: work.join("recipe-out/" + name))
            #expect(a != nil && a == b, "\(device): \(name) differs between flags and recipe")
        }
        #expect(try pngcheckFailures(names.map { work.join("flags/" + $0) }).isEmpty)
    }

    @Test(arguments: [
        (#"{"operations":[{"op":"blurr","sigma":1}]}"#, "unknown op \"blurr\""),
        (#"{"operations":[{"op":"blur"}]}"#, "operations[0].sigma: missing"),
        // A resize with neither side said "operations[0].width: or height is needed (or both)".
        (#"{"operations":[{"op":"resize"}]}"#, "operations[0].width: missing (a width, a height or both are needed)"),
        (#"{"operations":[{"op":"crop","x":0,"y":0,"width":"ten","height":5}]}"#, "operations[0].width: wrong type"),
        (#"{"operations":[{"op":"rotate","degrees":45}]}"#, "operations[0].degrees: must be 90, 180 or 270"),
        (#"{"operations":[{"op":"blur","sigma":1},{"op":"watermark","file":"m.png","margin":3000000000}]}"#,
         "operations[1].margin: must be 0…2147483647, not 3000000000"),
        (#"{"operations":[{"op":"adjust","gamma":0}]}"#, "operations[0].gamma: must be 0.01…100, not 0"),
        (#"{"operations":[{"op":"resize","width":60000,"height":60000,"fit":"fill","upscale":true}]}"#,
         "resize would make a 60000×60000 image"),
        // Named where it stands (it said only "not valid JSON").
        (#"{"operations":[{"op":"blur","sigma":1e999}]}"#, "operations[0].sigma: 1e999 is out of range"),
        // A `}` where `]` belongs is the parser's to say: the walk that names numbers looped on it for ever; and a
        // word that is no number is no number out of range.
        (#"{"operations":[{"op":"blur","sigma":2}}"#, "not valid JSON"),
        (#"{"operations":[{"op":"resize","width":100px}]}"#, "not valid JSON"),
        (#"{"operations":[{"op":"watermark","file":"missing.png"}]}"#, "missing.png"),
        (#"{"operations":[]"#, "not valid JSON"),
        (#"{"operations":[{"op":"blur","sigma":2,"sigmaa":3}]}"#, #"operations[0]: unknown key "sigmaa""#),
        (#"{"operations":[{"op":"grayscale"},{"op":"resize","width":10,"fitt":"cover"}]}"#,
         #"operations[1]: unknown key "fitt""#),
        (#"{"operations":[{"op":"blur","sigma":2}],"outputs":{"level":1}}"#, #"the top level: unknown key "outputs""#),
        (#"{"operations":[{"op":"blur","sigma":2}],"output":{"level":1,"lvl":2}}"#, #"output: unknown key "lvl""#),
        // In a recipe author's words, not Swift's ("expected Dictionary<String, Any>", "Cannot initialize Axis …").
        ("[]", "the top level: wrong type, expected an object ({…})"),
        (#"{"operations":[{"op":"flip","axis":"x"}]}"#, #"operations[0].axis: "x" is not one of h, v"#),
        (#"{"output":{"format":"gif"}}"#, #"output.format: "gif" is not one of same, png, jpeg, webp"#),
        (#"{"operations":[{"op":"resize","width":1.5}]}"#, "operations[0].width: must be a whole number, not 1.5"),
        (#"{"operations":[{"op":"blur","sigma":"x"}]}"#, "operations[0].sigma: wrong type, expected a number"),
        // A format option the recipe's format does not take names the recipe's key, not a flag.
        (#"{"output":{"format":"png","quality":50}}"#, "output.quality (recipe "),
        (#"{"output":{"format":"jpeg","level":3}}"#, "applies to PNG output, not JPEG"),
    ])
    func badRecipesExit64NamingTheProblem(_ text: String, _ named: String) throws {
        let work = try TemporaryDirectory()
        try text.write(toFile: work.join("recipe.json"), atomically: true, encoding: .utf8)
        let r = try kiln(["export", Paths.sampleData, "--output", work.join("out"), "--recipe", work.join("recipe.json")])
        #expect(r.status == 64)
        #expect(r.stderr.contains(named), "stderr should name \(named): \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.join("out")), "nothing written")
    }

    /// A recipe of output settings alone (docs/recipes.md's example) needs no `operations`; a folder named as
    /// the recipe says so (it said "NSCocoaErrorDomain error 256").
    /// A watermark `file` climbing out of a recipe named by a relative path (`--recipe r/wa.json`, "../marks/m.png")
    /// is the file beside `r`: Foundation's standardizing made it "/marks/m.png", and the export failed, exit 64.
    @Test func aRecipesWatermarkPathClimbsFromTheRecipesFolder() throws {
        let work = try TemporaryDirectory()
        for folder in ["r", "marks"] {
            try FileManager.default.createDirectory(atPath: work.join(folder), withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/watermark.png", toPath: work.join("marks/m.png"))
        try #"{"operations":[{"op":"watermark","file":"../marks/m.png"}]}"#
            .write(toFile: work.join("r/wa.json"), atomically: true, encoding: .utf8)
        let r = try startKiln(["export", Paths.sampleData + "/rgb8.png", "-o", "out", "--recipe", "r/wa.json", "--progress", "none"],
                              directory: work.path).wait(timeout: .seconds(120))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: work.join("out/rgb8.png")))
    }

    @Test func aRecipeMayHoldOutputSettingsAloneAndAFolderIsNoRecipe() throws {
        let work = try TemporaryDirectory()
        try #"{"output": {"format": "jpeg", "quality": 90}}"#.write(toFile: work.join("recipe.json"), atomically: true,
                                                                    encoding: .utf8)
        let r = try kiln(["export", Paths.sampleData + "/rgb8.png", "-o", work.join("out"), "--recipe", work.join("recipe.json"),
                          "--progress", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: work.join("out/rgb8.jpg")))
        let folder = try kiln(["export", Paths.sampleData + "/rgb8.png", "-o", work.join("no"), "--recipe", Paths.sampleData])
        #expect(folder.status == 64)
        #expect(folder.stderr.contains("invalid recipe \(Paths.sampleData): cannot read the file (it is a folder)"),
                "\(folder.stderr)")
    }

    /// `--watermark` reads its file as the inputs are read, by content: a lossless WebP of the
    /// PNG mark gives the same outputs as the PNG; a JPEG of it (its alpha flattened onto
    /// white) is drawn too, as an opaque square.
    @Test func aWatermarkMayBeAJPEGOrAWebP() throws {
        let work = try TemporaryDirectory()
        let mark = Paths.sampleData + "/watermark.png"
        let copy = try TemporaryDirectory()
        try FileManager.default.copyItem(atPath: mark, toPath: copy.join("mark.png"))
        for (format, extra) in [("webp", ["--lossless"]), ("jpeg", ["--quality", "95"])] {
            let made = try kiln(["export", copy.join("mark.png"), "-o", work.join("marks-" + format), "--format", format,
                                 "--progress", "none"] + extra)
            #expect(made.status == 0, "\(made.stderr)")
        }
        var outputs: [String: [String: Data]] = [:]
        for (label, file) in [("none", nil), ("png", mark), ("webp", work.join("marks-webp/mark.webp")),
                              ("jpeg", work.join("marks-jpeg/mark.jpg"))] {
            let r = try kiln(["export", Paths.sampleData, "-o", work.join("out-" + label), "--device", "cpu", "--progress", "none"]
                             + (file.map { ["--watermark", $0] } ?? []))
            #expect(r.status == 0, "\(label): \(r.stderr)")
            let names = Paths.pngs(in: work.join("out-" + label))
            #expect(names == Paths.pngs(in: Paths.sampleData), "\(label)")
            outputs[label] = Dictionary(uniqueKeysWithValues: names.map { ($0, FileManager.default.contents(atPath: work.join("out-\(label)/" + $0)) ?? Data()) })
        }
        #expect(outputs["webp"] == outputs["png"], "a lossless WebP mark gives the PNG mark's outputs")
        for name in outputs["none"]?.keys.sorted() ?? [] {
            #expect(outputs["jpeg"]?[name] != outputs["none"]?[name], "\(name): the JPEG mark is drawn")
            #expect(outputs["jpeg"]?[name] != outputs["png"]?[name], "\(name): the JPEG mark has no alpha")
        }
    }

    @Test func flagsBesideRecipeAndUnreadableRecipeExit64() throws {
        let work = try TemporaryDirectory()
        let beside = try kiln(["export", Paths.sampleData, "--output", work.join("out"),
                               "--recipe", Paths.sampleData + "/recipe.json", "--blur", "2"])
        #expect(beside.status == 64)
        #expect(beside.stderr.contains("--blur"), "\(beside.stderr)")
        let missing = try kiln(["export", Paths.sampleData, "--output", work.join("out"), "--recipe", work.join("none.json")])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("none.json"), "\(missing.stderr)")
    }

    /// "N images were smaller than the resize box and kept their size" counts the images a resize left
    /// unenlarged, whatever comes after it. Before, it compared the job's output with the box: a resize to
    /// 500 wide then a rotation (333 × 500) or a crop was said to have kept its size, and a 300 × 900 image
    /// under `--fit cover` or `fill` 500x500 (300 × 500 out: not widened) was not counted.
    @Test func theResizeBoxWarningCountsWhatTheResizeLeftItsSize() throws {
        let dir = try TemporaryDirectory()
        for (name, width, height) in [("wide", 1001, 667), ("tall", 300, 900)] {
            var bytes = [UInt8](repeating: 255, count: width * height * 4)
            for index in 0..<(width * height) {
                bytes[4 * index] = UInt8(index % 251)
                bytes[4 * index + 1] = UInt8(index % 241)
            }
            try Data(try PNGEncoder.encode(PixelBuffer(width: width, height: height, depth: .eight, bytes: bytes)))
                .write(to: URL(fileURLWithPath: dir.join(name + ".png")))
        }
        func recipe(_ operations: String) throws -> [String] {
            let path = dir.join("recipe-\(UUID().uuidString).json")
            try Data("{\"operations\":[\(operations)]}".utf8).write(to: URL(fileURLWithPath: path))
            return ["--recipe", path]
        }
        let cases: [(input: String, options: [String], counted: Bool)] = [
            ("wide", try recipe(#"{"op":"resize","width":500},{"op":"rotate","degrees":90}"#), false),
            ("wide", try recipe(#"{"op":"resize","width":500},{"op":"crop","x":0,"y":0,"width":100,"height":80}"#), false),
            ("tall", ["--resize", "500x500", "--fit", "cover"], true),
            ("tall", ["--resize", "500x500", "--fit", "fill"], true),
            ("tall", ["--resize", "500x1000"], true),
            ("tall", ["--resize", "500x500"], false),
        ]
        for (input, options, counted) in cases {
            let r = try kiln(["export", dir.join(input + ".png"), "-o", dir.join("out-\(UUID().uuidString)"), "--device", "cpu",
                              "--progress", "json"] + options)
            #expect(r.status == 0, "\(options): \(r.stderr)")
            let notes = Events(r.stdoutLines).named("warning").compactMap { $0["message"] as? String }.filter { $0.contains("resize box") }
            #expect(notes == (counted ? ["1 image was smaller than the resize box and kept its size (on the sides that were; "
                                         + "--upscale, or a recipe's \"upscale\": true, enlarges them)"] : []),
                    "\(input) \(options): \(notes)")
        }
    }

    /// A watermark whose margin puts it wholly outside the image is said: before, it vanished without a word.
    @Test func aWatermarkThatMissesTheImageIsSaid() throws {
        let dir = try TemporaryDirectory()
        for (margin, said) in [(500, true), (10, false)] {
            let r = try kiln(["export", Paths.sampleData + "/rgb8.png", "-o", dir.join("out-\(margin)"), "--device", "cpu",
                              "--watermark", Paths.sampleData + "/watermark.png", "--watermark-margin", "\(margin)",
                              "--progress", "json"])
            #expect(r.status == 0, "\(r.stderr)")
            let warnings = Events(r.stdoutLines).named("warning").compactMap { $0["message"] as? String }
            #expect(warnings.filter { $0.contains("rgb8.png: watermark left out: it lies wholly outside the image") }.count
                    == (said ? 1 : 0), "margin \(margin): \(warnings)")
        }
    }
}
