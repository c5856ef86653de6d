import Foundation
import KilnTestSupport
import Testing

/// Messages a user can act on, and a complete JSON stream on every exit after parsing.
@Suite struct MessageTests {
    @Test func noImagesFoundExits64WithTheRecursiveHint() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in/sub"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("in/sub/a.png"))
        let r = try kiln(["export", dir.join("in"), "--output", dir.join("out"), "--progress", "none"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--recursive") && r.stderr.contains("*.png"), "\(r.stderr)")
        #expect(!r.stderr.contains("USAGE") && !r.stderr.contains("Usage"))
    }

    /// status, resume and cancel of a file, not a folder, say so (they said "cannot read the journal afile/.kiln:
    /// Not a directory", and status --json's state was "unreadable", as for a damaged journal).
    @Test func statusResumeAndCancelOfAFileSayItIsNotAFolder() throws {
        let dir = try TemporaryDirectory()
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir.join("afile")))
        for command in ["status", "resume", "cancel"] {
            let r = try kiln([command, dir.join("afile")] + (command == "resume" ? ["--progress", "none"] : []))
            #expect(r.status == 1 && r.stderr.contains("/afile is not a folder"), "\(command): \(r.stderr)")
        }
        let json = try kiln(["status", dir.join("afile"), "--json"])
        #expect(json.stdout.contains(#""state":"none""#), "\(json.stdout)")
    }

    @Test func aMisspelledCommandGetsASuggestion() throws {
        let r = try kiln(["exprot", "x.png"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("did you mean export?"), "\(r.stderr)")
    }

    /// A folder named as an input that gives no image (a folder named `x.png` among files; one whose images are in
    /// subfolders, without --recursive) was passed over in silence, the job exiting 0 as if it had been exported.
    @Test func aFolderNamedAsAnInputWithNoImageIsSaid() throws {
        let dir = try TemporaryDirectory()
        for folder in ["in/p_dir.png", "in/sub/inner"] {
            try FileManager.default.createDirectory(atPath: dir.join(folder), withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("in/ok.png"))
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("in/sub/inner/a.png"))
        let r = try kiln(["export", dir.join("in/ok.png"), dir.join("in/p_dir.png"), dir.join("in/sub"), "-o", dir.join("out"),
                          "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = Events(r.stdoutLines).named("warning").map { $0[string: "message"] }
        for folder in ["in/p_dir.png", "in/sub"] {
            #expect(warnings.contains { $0 == dir.join(folder) + ": a folder named as an input, with no image kiln reads in it "
                        + "(subfolders are searched only with --recursive)" }, "\(warnings)")
        }
        let recursive = try kiln(["export", dir.join("in/ok.png"), dir.join("in/sub"), "--recursive", "-o", dir.join("rec"),
                                  "--progress", "json"])
        #expect(recursive.status == 0 && Events(recursive.stdoutLines).named("warning").isEmpty, "\(recursive.stdout)")
    }

    /// An output folder named by a symbolic link to nothing said "cannot create directory out: Not a directory".
    @Test func anOutputThatIsADanglingLinkIsSaidToBeOne() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createSymbolicLink(atPath: dir.join("out"), withDestinationPath: dir.join("gone"))
        let r = try kiln(["export", Paths.sampleData + "/rgb8.png", "-o", dir.join("out"), "--progress", "none"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("it is a symbolic link to \(dir.join("gone")), which does not exist"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.join("gone")), "nothing made through the link")
    }

    /// `kiln export -dash.png -o out`: the parser read the name as short flags, its `-h` printed the help and the
    /// command exited 0 having done nothing. A dashed name of a file that exists is refused, saying how to name it.
    @Test func aFileNameStartingWithADashIsNotTakenForFlags() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("-dash.png"))
        let r = try startKiln(["export", "-dash.png", "-o", "out"], directory: dir.path).wait()
        #expect(r.status == 64, "\(r.stdout)")
        #expect(r.stderr.contains("-dash.png would be read as options") && r.stderr.contains("(kiln export … -- -dash.png)")
                && r.stderr.contains("./-dash.png"), "\(r.stderr)")
        // A value that starts with a dash is no name, even where a file is called so.
        _ = FileManager.default.createFile(atPath: dir.join("-0.5"), contents: Data())
        let value = try startKiln(["export", "./-dash.png", "--brightness", "-0.5", "-o", "value", "--progress", "none"],
                                  directory: dir.path).wait()
        #expect(value.status == 0, "\(value.stderr)")
        let named = try startKiln(["export", "-o", "out", "--progress", "none", "--", "-dash.png"], directory: dir.path).wait()
        #expect(named.status == 0, "\(named.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.join("out/-dash.png")))
    }

    /// Both exits after parsing write `error` then `end`, and name the cause.
    @Test func refusalsEndTheJSONStreamAndNameTheCause() throws {
        let dir = try TemporaryDirectory()
        let folder = try kiln(["export", Paths.sampleData, "--output", "/proc/kiln-test/out", "--progress", "json"])
        #expect(folder.status == 64)
        #expect(folder.stderr.contains("cannot create directory /proc/kiln-test") && folder.stderr.contains("No such file"),
                "the path and the operation are named: \(folder.stderr)")
        let gpu = try kiln(["export", Paths.sampleData, "--output", dir.join("o"), "--device", "gpu", "--progress", "json"],
                           environment: DeviceSelectionTests.noLoader)
        #expect(gpu.status == 69)
        for (r, code) in [(folder, 64), (gpu, 69)] {
            let events = Events(r.stdoutLines)
            #expect(events.all.map { $0[string: "event"] } == ["error", "end"], "\(r.stdout)")
            #expect(events.all.last?["exitCode"] as? Int == code)
        }
        #expect(!FileManager.default.fileExists(atPath: dir.join("o")))
    }

    @Test func cancellingAFinishedJobSaysSoWithoutUsage() throws {
        let out = try TemporaryDirectory()
        #expect(try kiln(["export", Paths.sampleData, "--output", out.path, "--progress", "none",
                          "--keep-journal"]).status == 0)
        let r = try kiln(["cancel", out.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains("already finished"), "\(r.stderr)")
        #expect(!r.stderr.contains("USAGE") && !r.stderr.contains("Usage"))
    }

    @Test func helpStatesTheOperationOrderAndEachDefaultOnce() throws {
        let help = try kiln(["export", "--help"]).stdout
        let flat = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.contains("crop, rotate, flip, resize, adjust (brightness, contrast, saturation, exposure, gamma), "
                              + "blur, sharpen, grayscale, watermark"), "\(help)")
        let jobs = help.components(separatedBy: "--jobs <jobs>").last?.components(separatedBy: "\n  --").first ?? ""
        #expect(jobs.components(separatedBy: "default").count == 2, "--jobs states its default once: \(jobs)")
    }

    @Test func negativeNumbersAreValues() throws {
        let dir = try TemporaryDirectory()
        let r = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", dir.join("o"), "--progress", "none",
                          "--brightness", "-0.1", "--exposure", "-1"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Paths.pngs(in: dir.join("o")) == ["rgb8.png"])
        let bad = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", dir.join("p"), "--resize", "-5x10"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("resize") && !bad.stderr.contains("Missing value"), "\(bad.stderr)")
    }

    /// `--memory -1G` is a size error, not "Missing value" (a value with a leading dash was taken for a flag);
    /// `kiln cancel` of a folder a clean run left says why there is nothing, as `kiln status` does.
    @Test func aNegativeSizeAndAnEndedJobAreSaidPlainly() throws {
        let dir = try TemporaryDirectory()
        let memory = try kiln(["export", Paths.sampleData + "/rgb8.png", "-o", dir.join("m"), "--memory", "-1G"])
        #expect(memory.status == 64 && memory.stderr.contains("--memory must be a size such as"), "\(memory.stderr)")
        #expect(try kiln(["export", Paths.sampleData + "/rgb8.png", "-o", dir.join("done"), "--progress", "none"]).status == 0)
        let cancel = try kiln(["cancel", dir.join("done")])
        #expect(cancel.status == 1, "\(cancel.stderr)")
        #expect(cancel.stderr.contains("nothing to cancel: ") && cancel.stderr.contains("a job that finished without failures or conflicts removes it"),
                "\(cancel.stderr)")
    }

    @Test func imagesSmallerThanTheBoxGetOneNote() throws {
        let dir = try TemporaryDirectory()
        let r = try kiln(["export", Paths.sampleData, "--output", dir.path, "--progress", "json", "--resize", "3000x"])
        #expect(r.status == 0, "\(r.stderr)")
        let count = Paths.pngs(in: Paths.sampleData).count
        let warnings = Events(r.stdoutLines).named("warning").map { $0[string: "message"] }
        #expect(warnings.count == 1, "\(warnings)")
        #expect(warnings.first?.contains("\(count) images") == true && warnings.first?.contains("--upscale") == true)
    }

    /// Before: `--lossless` or `--progressive` on PNG inputs under `--format same` did nothing, exit 0,
    /// and nothing said so (with `--format png` they are refused, exit 64).
    @Test func formatOptionsNoOutputTakesAreSaid() throws {
        let dir = try TemporaryDirectory()
        let input = Paths.sampleData + "/rgb8.png"
        let r = try kiln(["export", input, "--output", dir.join("a"), "--progress", "json", "--lossless", "--progressive"])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = Events(r.stdoutLines).named("warning").map { $0[string: "message"] }
        #expect(warnings.count == 2 && warnings.contains { $0.hasPrefix("--lossless applies to WebP outputs") }
                && warnings.contains { $0.hasPrefix("--progressive applies to JPEG outputs") }, "\(warnings)")
        // A recipe's are named as the recipe's keys, not as flags that were never given.
        try #"{"output":{"lossless":true,"subsample":"444"}}"#.write(toFile: dir.join("r.json"), atomically: true, encoding: .utf8)
        let recipe = try kiln(["export", input, "--output", dir.join("r"), "--progress", "json", "--recipe", dir.join("r.json")])
        #expect(recipe.status == 0, "\(recipe.stderr)")
        let said = Events(recipe.stdoutLines).named("warning").map { $0[string: "message"] }
        #expect(said.contains { $0.hasPrefix("output.lossless (recipe \(dir.join("r.json"))) applies to WebP outputs") }
                && said.contains { $0.hasPrefix("output.subsample (recipe \(dir.join("r.json"))) applies to JPEG outputs") },
                "\(said)")
        // Where some output takes it, nothing is said: a WebP output of the same PNG.
        let webp = try kiln(["export", input, "--output", dir.join("b"), "--progress", "json", "--format", "webp", "--lossless"])
        #expect(webp.status == 0 && Events(webp.stdoutLines).named("warning").isEmpty, "\(webp.stdout)")
        // In place, by the input's own name: a .jpeg takes --quality.
        let jpeg = try kiln(["export", input, "--output", dir.join("c"), "--progress", "none", "--format", "jpeg"])
        #expect(jpeg.status == 0, "\(jpeg.stderr)")
        try FileManager.default.moveItem(atPath: dir.join("c/rgb8.jpg"), toPath: dir.join("c/rgb8.jpeg"))
        let inPlace = try kiln(["export", "--in-place", dir.join("c/rgb8.jpeg"), "--progress", "json", "--quality", "70"])
        #expect(inPlace.status == 0 && Events(inPlace.stdoutLines).named("warning").isEmpty, "\(inPlace.stdout)")
    }

    /// Before: `--level` with `--format jpeg` or `webp`, and `--background` with `--format png` or `webp`, were
    /// taken silently (the subtitle even read "JPEG quality 85" under `--level 3`), and so under `--format same`.
    @Test func levelAndBackgroundAreRefusedOrSaidWhereNoOutputTakesThem() throws {
        let dir = try TemporaryDirectory()
        let png = Paths.sampleData + "/rgb8.png"
        for (format, option) in [("jpeg", ["--level", "3"]), ("webp", ["--level", "3"]), ("png", ["--background", "black"]),
                                 ("webp", ["--background", "black"])] {
            let r = try kiln(["export", png, "-o", dir.join("refused"), "--format", format] + option)
            #expect(r.status == 64, "\(format) \(option): \(r.stderr)")
            #expect(r.stderr.contains("\(option[0]) applies to \(option[0] == "--level" ? "PNG" : "JPEG") output"), "\(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.join("refused")))
        let both = try kiln(["export", png, "-o", dir.join("refused"), "--format", "png", "--quality", "5", "--background", "black"])
        #expect(both.stderr.contains("--quality (JPEG or WebP) and --background (JPEG) do not apply to PNG output"),
                "\(both.stderr)")
        // A recipe's, where --format chose another format (SampleData/recipe.json's level with --format jpeg): said.
        let recipe = try kiln(["export", png, "-o", dir.join("recipe"), "--recipe", Paths.sampleData + "/recipe.json",
                               "--format", "jpeg", "--progress", "json"])
        #expect(recipe.status == 0, "\(recipe.stderr)")
        #expect(Events(recipe.stdoutLines).named("warning").map { $0[string: "message"] }
                    .contains { $0.hasPrefix("output.level (recipe ") && $0.hasSuffix("does not apply to the JPEG output --format chose") },
                "\(recipe.stdout)")
        // Under --format same: said once at the start.
        let jpeg = try kiln(["export", png, "-o", dir.join("jpeg"), "--format", "jpeg", "--progress", "none"])
        #expect(jpeg.status == 0, "\(jpeg.stderr)")
        for (input, option, said) in [(dir.join("jpeg/rgb8.jpg"), ["--level", "3"], "--level applies to PNG outputs"),
                                      (png, ["--background", "black"], "--background applies to JPEG outputs")] {
            let r = try kiln(["export", input, "-o", dir.join("same-\(option[0])"), "--progress", "json"] + option)
            #expect(r.status == 0, "\(r.stderr)")
            let warnings = Events(r.stdoutLines).named("warning").map { $0[string: "message"] }
            #expect(warnings.count == 1 && warnings[0].hasPrefix(said), "\(warnings)")
        }
    }
}
