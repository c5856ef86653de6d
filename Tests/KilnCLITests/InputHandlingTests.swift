import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// SPEC §5 inputs and safety rules, through the CLI.
@Suite struct InputHandlingTests {
    /// A directory tree of inputs: a.png, sub/b.png, sub/deeper/c.png, notes.txt.
    private func makeTree() throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory()
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir.join("in/sub/deeper"), withIntermediateDirectories: true)
        try fm.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("in/a.png"))
        try fm.copyItem(atPath: Paths.sampleData + "/gray8.png", toPath: dir.join("in/sub/b.png"))
        try fm.copyItem(atPath: Paths.sampleData + "/palette4.png", toPath: dir.join("in/sub/deeper/c.PNG"))
        try "not an image".write(toFile: dir.join("in/notes.txt"), atomically: true, encoding: .utf8)
        return dir
    }

    private func tree(_ root: String) -> [String] {
        let e = FileManager.default.enumerator(atPath: root)
        var files: [String] = []
        while let p = e?.nextObject() as? String {
            if p.hasPrefix(".kiln") { continue }
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + p, isDirectory: &isDir), !isDir.boolValue { files.append(p) }
        }
        return files.sorted()
    }

    @Test func directoryWithoutRecursiveTakesOnlyItsOwnPNGs() throws {
        let dir = try makeTree()
        let r = try kiln(["export", dir.join("in"), "--output", dir.join("out"), "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(tree(dir.join("out")) == ["a.png"])
    }

    @Test func recursiveMirrorsRelativePaths() throws {
        let dir = try makeTree()
        // Named with a trailing slash, as a shell completes a folder: the events named `out//a.png`.
        let r = try kiln(["export", dir.join("in"), "--recursive", "--output", dir.join("out") + "/", "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(tree(dir.join("out")) == ["a.png", "sub/b.png", "sub/deeper/c.png"])
        let outputs = Events(r.stdoutLines).files("written").map { $0[string: "output"] }.sorted()
        #expect(outputs == ["a.png", "sub/b.png", "sub/deeper/c.png"].map { dir.join("out/" + $0) }, "\(outputs)")
    }

    @Test func stdinListMirrorsRelativePathsAndNamesBadLines() throws {
        let dir = try makeTree()
        let r = try startKiln(["export", "-", "--output", "out", "--progress", "json"],
                              stdin: "in/a.png\nin/sub/b.png\n\nin/missing.png\n", directory: dir.path).wait()
        #expect(r.status == 1)
        #expect(tree(dir.join("out")) == ["in/a.png", "in/sub/b.png"])
        let failed = Events(r.stdoutLines).files("failed")
        #expect(failed.count == 1)
        #expect(failed.first?["input"] as? String == "in/missing.png")
        // Said once: before, each of the three readers said it ("…; …; …").
        let error = (failed.first ?? [:])[string: "error"]
        #expect(error.contains("cannot open the file: No such file") && !error.contains(";"), "\(error)")
    }

    @Test func namedNonPNGFailsAloneWithItsReason() throws {
        let dir = try makeTree()
        let r = try kiln(["export", dir.join("in/notes.txt"), dir.join("in/a.png"), "--output", dir.join("out"),
                          "--progress", "json"])
        #expect(r.status == 1)
        #expect(tree(dir.join("out")) == ["a.png"])
        let failed = Events(r.stdoutLines).files("failed")
        #expect(failed.first?["input"] as? String == dir.join("in/notes.txt"))
        #expect((failed.first ?? [:])[string: "error"].lowercased().contains("signature"))
    }

    @Test func identicalOutputsAreSkippedOthersAreConflictsUnlessOverwrite() throws {
        let dir = try makeTree()
        let args = ["export", dir.join("in"), "--output", dir.join("out"), "--progress", "json"]
        #expect(try kiln(args).status == 0)
        let same = try kiln(args)
        #expect(same.status == 0, "identical work is skipped: \(same.stderr)")
        #expect(Events(same.stdoutLines).files("skipped").count == 1)
        try Data("stale".utf8).write(to: URL(fileURLWithPath: dir.join("out/a.png")))
        let again = try kiln(args)
        #expect(again.status == 1, "an output kiln did not make is not skipped silently")
        let conflicts = Events(again.stdoutLines).files("conflict")
        #expect(conflicts.count == 1)
        #expect((conflicts.first ?? [:])[string: "error"].contains("--overwrite"))
        #expect(try String(contentsOfFile: dir.join("out/a.png"), encoding: .utf8) == "stale")
        let forced = try kiln(args + ["--overwrite"])
        #expect(forced.status == 0)
        #expect(try PNGDecoder.decode(contentsOf: dir.join("out/a.png")) == PNGDecoder.decode(contentsOf: dir.join("in/a.png")))
    }

    /// No dead end: no flag is suggested that would then fail every file.
    @Test(arguments: [[], ["--overwrite"]])
    func outputDirectoryThatIsAnInputIsRefused(_ extra: [String]) throws {
        let dir = try makeTree()
        let r = try kiln(["export", dir.join("in"), "--output", dir.join("in")] + extra)
        #expect(r.status == 64)
        #expect(r.stderr.contains("input directory") && r.stderr.contains("choose another --output"), "\(r.stderr)")
        #expect(!r.stderr.contains("pass --overwrite"))
        #expect(!FileManager.default.fileExists(atPath: dir.join("in/.kiln")))
    }

    @Test func inputsAreNeverOverwrittenEvenWithOverwrite() throws {
        let dir = try makeTree()
        let before = try Data(contentsOf: URL(fileURLWithPath: dir.join("in/a.png")))
        let r = try kiln(["export", dir.join("in/a.png"), "--output", dir.join("in"), "--overwrite", "--progress", "json"])
        #expect(r.status == 1)
        let failed = Events(r.stdoutLines).files("failed")
        #expect(failed.count == 1)
        #expect((failed.first ?? [:])[string: "error"].contains("never overwritten"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.join("in/a.png"))) == before)
    }

    @Test func symlinksInTheOutputAreNeverFollowed() throws {
        let dir = try makeTree()
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir.join("out"), withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir.join("elsewhere"), withIntermediateDirectories: true)
        try "precious".write(toFile: dir.join("elsewhere/a.png"), atomically: true, encoding: .utf8)
        // out/sub → elsewhere (a directory link) and out/a.png → elsewhere/a.png (a file link).
        try fm.createSymbolicLink(atPath: dir.join("out/sub"), withDestinationPath: dir.join("elsewhere"))
        try fm.createSymbolicLink(atPath: dir.join("out/a.png"), withDestinationPath: dir.join("elsewhere/a.png"))
        let r = try kiln(["export", dir.join("in"), "--recursive", "--overwrite", "--output", dir.join("out"),
                          "--progress", "json"])
        #expect(r.status == 1)
        let failed = Events(r.stdoutLines).files("failed")
        #expect(failed.count == 2, "sub/b.png and sub/deeper/c.png go through the symlinked directory")
        #expect(failed.allSatisfy { $0[string: "error"].contains("symlink") })
        // The linked file was replaced by a real output, not written through.
        #expect(try String(contentsOfFile: dir.join("elsewhere/a.png"), encoding: .utf8) == "precious")
        let attributes = try fm.attributesOfItem(atPath: dir.join("out/a.png"))
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect(try PNGDecoder.decode(contentsOf: dir.join("out/a.png")) == PNGDecoder.decode(contentsOf: dir.join("in/a.png")))
        #expect(fm.contents(atPath: dir.join("elsewhere/b.png")) == nil)
    }

    /// An existing output that is a folder: the conflict said "--overwrite replaces it", and --overwrite then failed
    /// with "cannot rename into place: Is a directory", naming nothing. Now both name the folder and say it stays.
    @Test func anOutputThatIsAFolderIsSaidToStay() throws {
        let dir = try makeTree()
        try FileManager.default.createDirectory(atPath: dir.join("out/a.png"), withIntermediateDirectories: true)
        for overwrite in [false, true] {
            let r = try kiln(["export", dir.join("in/a.png"), "--output", dir.join("out"), "--progress", "json"]
                             + (overwrite ? ["--overwrite"] : []))
            #expect(r.status == 1, "\(r.stdout)")
            let said = Events(r.stdoutLines).named("file").first?[string: "error"] ?? ""
            #expect(said.contains(dir.join("out/a.png")) && said.contains("folder") && said.contains("never"),
                    "overwrite \(overwrite): \(said)")
        }
        #expect(try FileManager.default.attributesOfItem(atPath: dir.join("out/a.png"))[.type] as? FileAttributeType == .typeDirectory)
    }

    /// A named pipe at an output's path is a conflict said at once, by what it is. Opened to be compared, it held
    /// the job waiting for a writer until the watchdog stopped it (exit 75, naming nothing); the other image is written.
    @Test func aNamedPipeAtAnOutputIsKeptAndSaidAtOnce() throws {
        let dir = try makeTree()
        try FileManager.default.createDirectory(atPath: dir.join("out"), withIntermediateDirectories: true)
        #expect(mkfifo(dir.join("out/a.png"), 0o644) == 0)
        let r = try kiln(["export", dir.join("in/a.png"), dir.join("in/sub/b.png"), "--output", dir.join("out"),
                          "--progress", "json", "--stall-timeout", "10"])
        #expect(r.status == 1, "\(r.stdout)")
        let said = Events(r.stdoutLines).named("file").first { $0["status"] as? String != "written" }?[string: "error"] ?? ""
        #expect(said.contains(dir.join("out/a.png") + " is a named pipe (FIFO); kept"), "\(r.stdout)")
        #expect(FileManager.default.fileExists(atPath: dir.join("out/b.png")))
        var info = stat()
        #expect(lstat(dir.join("out/a.png"), &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the pipe stays")
    }

    @Test func collidingOutputsFailOneInput() throws {
        let dir = try makeTree()
        try FileManager.default.copyItem(atPath: dir.join("in/a.png"), toPath: dir.join("in/a.PNG"))
        let r = try kiln(["export", dir.join("in"), "--output", dir.join("out"), "--progress", "json"])
        #expect(r.status == 1)
        let failed = Events(r.stdoutLines).files("failed")
        #expect(failed.count == 1)
        #expect((failed.first ?? [:])[string: "error"].contains("also the output of"))
    }

    @Test(arguments: [
        ["export", "x.png"],                                   // no --output
        ["export", "x.png", "--output", "o", "--level", "10"],
        ["export", "x.png", "--output", "o", "--jobs", "0"],
        ["export", "x.png", "--output", "o", "--keep", "none,exif"],  // it meant exif, without a word
        ["export", "x.png", "--output", "o", "--device", "tpu"],
        ["export", "x.png", "--output", "o", "--bogus"],
    ])
    func usageErrorsExit64(_ args: [String]) throws {
        let dir = try TemporaryDirectory()
        let r = try startKiln(args, directory: dir.path).wait()
        #expect(r.status == 64, "\(args): \(r.stderr)")
        #expect(!r.stderr.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir.join("o")))
    }

    /// `-o -` made a folder named `-` (exit 0) where vips and ImageMagick write to standard output; `-o ''` said
    /// "cannot create directory : No such file or directory". Both are usage errors saying so, nothing made.
    @Test func anOutputOfDashOrNothingIsRefusedSayingWhy() throws {
        let dir = try makeTree()
        for (value, said) in [("-", "it writes none to standard output (-). For a folder named -, write ./-"),
                              ("", "--output is empty"), (" ", "--output is blank")] {
            let r = try startKiln(["export", dir.join("in/a.png"), "-o", value], directory: dir.path).wait()
            #expect(r.status == 64 && r.stderr.contains(said), "\(value): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.join("-")))
        let named = try startKiln(["export", dir.join("in/a.png"), "-o", "./-", "--progress", "none"], directory: dir.path).wait()
        #expect(named.status == 0 && FileManager.default.fileExists(atPath: dir.join("-/a.png")), "\(named.stderr)")
    }

    /// `--jobs` as large as a number goes runs the images there are: it crashed (an overflow counting the
    /// descriptors of that many workers), after the journal was written, and every resume crashed again.
    @Test func theLargestJobsRunsTheImagesThereAre() throws {
        let dir = try makeTree()
        let r = try kiln(["export", dir.join("in"), "--recursive", "--output", dir.join("out"), "--jobs", String(Int.max), "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Events(r.stdoutLines).files("written").count == 3, "\(r.stdout)")
    }

    @Test func helpDocumentsExitCodes() throws {
        let r = try kiln(["export", "--help"])
        for code in ["64", "69", "75"] { #expect(r.stdout.contains(code)) }
    }
}
