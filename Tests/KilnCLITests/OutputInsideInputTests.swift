import Foundation
import KilnTestSupport
import PNGCodec
import Testing

/// "Kiln writes only where it was asked": an output folder inside an input folder.
///
/// A recursive scan of an input folder would reach an output folder inside it,
/// whose files are then inputs that outputs land on (before the rule, kiln left
/// them out of the scan and `--overwrite` replaced `d/sub/a.png`, an original,
/// by the output of `d/a.png`). So an output folder inside a recursive input is
/// refused (exit 64) before anything is made, `--overwrite` or not; a
/// non-recursive input, which the scan never leaves, may hold it.
@Suite struct OutputInsideInputTests {
    /// `d/a.png`, `d/b.png`, and inside `d/sub` an original `a.png` (other pixels
    /// than `d/a.png`, whose output it would be) and `deep/c.png`.
    private func makeTree() throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory()
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir.join("d/sub/deep"), withIntermediateDirectories: true)
        try fm.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("d/a.png"))
        try fm.copyItem(atPath: Paths.sampleData + "/palette8.png", toPath: dir.join("d/b.png"))
        try fm.copyItem(atPath: Paths.sampleData + "/gray8.png", toPath: dir.join("d/sub/a.png"))
        try fm.copyItem(atPath: Paths.sampleData + "/palette4.png", toPath: dir.join("d/sub/deep/c.png"))
        return dir
    }

    /// Every entry under `root`, hidden ones included, by relative path: a file's
    /// bytes, a folder's and a link's kind (links are not followed). Two equal
    /// snapshots mean nothing was created, removed or changed.
    private func snapshot(_ root: String) throws -> [String: Data] {
        var entries: [String: Data] = [:]
        func visit(_ relative: String) throws {
            let path = relative.isEmpty ? root : root + "/" + relative
            for name in try FileManager.default.contentsOfDirectory(atPath: path) {
                let child = relative.isEmpty ? name : relative + "/" + name
                var info = stat()
                #expect(lstat(root + "/" + child, &info) == 0)
                switch info.st_mode & S_IFMT {
                case S_IFDIR:
                    entries[child] = Data("folder".utf8)
                    try visit(child)
                case S_IFLNK:
                    entries[child] = Data("link".utf8)
                default:
                    entries[child] = try Data(contentsOf: URL(fileURLWithPath: root + "/" + child))
                }
            }
        }
        try visit("")
        return entries
    }

    /// The issue's case: `d/sub/a.png` is an original, and the output of `d/a.png` would be written over it.
    @Test(arguments: [[], ["--overwrite"]])
    func anOutputFolderInsideARecursiveInputIsRefusedAndNothingChanges(_ extra: [String]) throws {
        let dir = try makeTree()
        let before = try snapshot(dir.path)
        let r = try kiln(["export", dir.join("d"), "--recursive", "--output", dir.join("d/sub"), "--progress", "json"]
                         + extra)
        #expect(r.status == 64, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stderr.contains("inside the input directory \(dir.join("d"))"), "\(r.stderr)")
        #expect(r.stderr.contains("--recursive") && r.stderr.contains("choose an --output outside"), "\(r.stderr)")
        #expect(!r.stderr.contains("pass --overwrite"), "no flag lets outputs land on inputs")
        #expect(Events(r.stdoutLines).named("file").isEmpty)
        #expect(try snapshot(dir.path) == before, "every input byte-identical, nothing created (not even .kiln)")
    }

    /// The output folder need not exist: its nearest existing folder says where it
    /// would be made. Paths are compared as files (device and inode), so a
    /// relative `.` or a symlink leads to the same refusal.
    @Test(arguments: [
        (cwd: "", input: "d", output: "d/new/deeper"),  // not made yet, nor its parent
        (cwd: "d", input: ".", output: "out"),         // the everyday form: kiln export . -r -o out
        (cwd: "", input: "d", output: "link/sub"),     // link → d
        (cwd: "", input: "link", output: "d/sub/deep"),
    ])
    func anOutputFolderInsideARecursiveInputIsRefusedWhateverThePath(_ paths: (cwd: String, input: String, output: String)) throws {
        let dir = try makeTree()
        try FileManager.default.createSymbolicLink(atPath: dir.join("link"), withDestinationPath: dir.join("d"))
        let before = try snapshot(dir.path)
        let r = try startKiln(["export", paths.input, "--recursive", "-o", paths.output, "--overwrite", "--progress", "json"],
                              directory: paths.cwd.isEmpty ? dir.path : dir.join(paths.cwd)).wait()
        #expect(r.status == 64, "\(paths): \(r.stdout)\n\(r.stderr)")
        #expect(r.stderr.contains("inside the input directory \(paths.input)"), "\(r.stderr)")
        #expect(try snapshot(dir.path) == before, "\(paths): nothing created or changed")
    }

    /// Without --recursive the scan takes only the folder's own files, so an output
    /// folder inside it is never scanned: the export works, writes only there, and
    /// a second run does not take the outputs for inputs.
    @Test func aNonRecursiveInputMayHoldTheOutputFolderAndOnlyItIsWritten() throws {
        let dir = try makeTree()
        let before = try snapshot(dir.path)
        let args = ["export", dir.join("d"), "--output", dir.join("d/out"), "--progress", "json"]
        let r = try kiln(args)
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        let after = try snapshot(dir.path)
        #expect(after.filter { !$0.key.hasPrefix("d/out") } == before, "nothing outside the output folder changed")
        #expect(after.keys.filter { $0.hasPrefix("d/out/") }.sorted() == ["d/out/a.png", "d/out/b.png"])
        for name in ["a.png", "b.png"] {
            #expect(try PNGDecoder.decode(contentsOf: dir.join("d/out/" + name))
                    == PNGDecoder.decode(contentsOf: dir.join("d/" + name)))
        }
        let again = try kiln(args)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(Events(again.stdoutLines).named("start").first?["total"] as? Int == 2, "the outputs are not inputs")
        #expect(Events(again.stdoutLines).files("skipped").count == 2)
        #expect(try snapshot(dir.path) == after)
    }

    /// A file named as an input inside the output folder is an input like any
    /// other: the output that would land on it fails, --overwrite or not.
    @Test func anInputFileInsideTheOutputFolderIsNeverWrittenOverEvenWithOverwrite() throws {
        let dir = try makeTree()
        let original = try Data(contentsOf: URL(fileURLWithPath: dir.join("d/sub/a.png")))
        let r = try kiln(["export", dir.join("d"), dir.join("d/sub/a.png"), "--output", dir.join("d/sub"),
                          "--overwrite", "--progress", "json"])
        #expect(r.status == 1, "\(r.stdout)\n\(r.stderr)")
        let failed = Events(r.stdoutLines).files("failed")
        #expect(failed.contains { $0[string: "input"] == dir.join("d/a.png")
                && $0[string: "error"].contains("is an input; inputs are never overwritten") }, "\(failed)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.join("d/sub/a.png"))) == original)
        #expect(try PNGDecoder.decode(contentsOf: dir.join("d/sub/b.png")) == PNGDecoder.decode(contentsOf: dir.join("d/b.png")))
    }

    /// A symbolic link at an output's path that points at another input is a link: kept as a conflict, replaced under
    /// --overwrite (the link itself, never its target). It was judged by its target, "its output … is an input", and
    /// failed --overwrite or not.
    @Test func aLinkToAnInputAtAnOutputPathIsALinkNotAnInput() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.join("out"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("in/x.png"))
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/gray8.png", toPath: dir.join("in/y.png"))
        try FileManager.default.createSymbolicLink(atPath: dir.join("out/y.png"), withDestinationPath: "../in/x.png")
        let original = try Data(contentsOf: URL(fileURLWithPath: dir.join("in/x.png")))
        let kept = try kiln(["export", dir.join("in"), "--output", dir.join("out"), "--progress", "json"])
        #expect(kept.status == 1, "\(kept.stderr)")
        #expect(Events(kept.stdoutLines).files("conflict").first?[string: "error"].contains("is a symbolic link; kept") == true,
                "\(kept.stdout)")
        let replaced = try kiln(["export", dir.join("in"), "--output", dir.join("out"), "--overwrite", "--progress", "none"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: dir.join("out/y.png"))) == nil, "replaced by a file")
        #expect(try PNGDecoder.decode(contentsOf: dir.join("out/y.png")) == PNGDecoder.decode(contentsOf: dir.join("in/y.png")))
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.join("in/x.png"))) == original, "the link's target untouched")

        // A link named as an input is an input all the same: never replaced by another input's output (review). Here
        // y.png's output is out/y.png, a link to in/x.png named as an input itself.
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/gray8.png", toPath: dir.join("y.png"))
        try FileManager.default.removeItem(atPath: dir.join("out/y.png"))
        try FileManager.default.createSymbolicLink(atPath: dir.join("out/y.png"), withDestinationPath: "../in/x.png")
        let named = try startKiln(["export", "y.png", "out/y.png", "-o", "out", "--overwrite", "--progress", "json"],
                                  directory: dir.path).wait()
        #expect(named.status == 1, "\(named.stderr)")
        #expect(Events(named.stdoutLines).files("failed").contains { $0[string: "error"].contains("is an input") }, "\(named.stdout)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: dir.join("out/y.png"))) == "../in/x.png", "the link kept")
    }
}
