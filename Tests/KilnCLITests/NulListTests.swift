import Foundation
import KilnTestSupport
import Testing

/// `-0` exists for names no newline list can carry: it accepts every byte but
/// NUL in a name, as the same file named as an argument is accepted; an empty
/// `-` list says so. (Issue 24: a name holding a newline was refused, exit 64,
/// and an empty list was answered "directories give their *.png files".)
@Suite struct NulListTests {
    @Test func nulListAcceptsANameWithANewlineAndATab() throws {
        let dir = try TemporaryDirectory()
        let name = "two\nlines\tand tab.png"
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join(name))
        let argument = try kiln(["export", dir.join(name), "--output", dir.join("argument"), "--progress", "none"])
        #expect(argument.status == 0, "named as an argument: \(argument.stderr)")
        let r = try kiln(["export", "-0", "-", "--output", dir.join("list"), "--progress", "json"],
                         stdin: dir.join(name) + "\0")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Events(r.stdoutLines).files("written").map { $0[string: "input"] } == [dir.join(name)])
        #expect(FileManager.default.contentsEqual(atPath: dir.join("argument/" + name), andPath: dir.join("list/" + name)))
    }

    @Test func newlineListStillRefusesAControlCharacter() throws {
        let dir = try TemporaryDirectory()
        let r = try kiln(["export", "-", "--output", dir.join("out"), "--progress", "none"],
                         stdin: Paths.sampleData + "/rgb8.png\u{1B}\n")
        #expect(r.status == 64)
        #expect(r.stderr.contains("line 1") && r.stderr.contains("U+001B"), "\(r.stderr)")
    }

    /// `find DIR -print0` names DIR and its subfolders beside their images: each folder failed as "not an image
    /// file" (exit 1, every image written). Folders in a list are passed over, said once; the images are exported once.
    @Test func foldersInAListArePassedOverSaidOnce() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in/sub"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("in/a.png"))
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/gray8.png", toPath: dir.join("in/sub/b.png"))
        let list = [dir.join("in"), dir.join("in/a.png"), dir.join("in/sub"), dir.join("in/sub/b.png")]
        let r = try kiln(["export", "-0", "-", "--output", dir.join("out"), "--progress", "json"],
                         stdin: list.joined(separator: "\0") + "\0")
        #expect(r.status == 0, "\(r.stderr)")
        let events = Events(r.stdoutLines)
        #expect(events.files("written").map { $0[string: "input"] }.sorted() == [dir.join("in/a.png"), dir.join("in/sub/b.png")])
        #expect(events.files("failed").isEmpty, "\(r.stdout)")
        let warnings = events.named("warning").map { $0[string: "message"] }.filter { $0.contains("in the - list are folders") }
        #expect(warnings == [dir.join("in") + " (and 1 more) in the - list are folders, passed over: a list names files "
                             + "(find … -type f), and the images in a folder are exported where the list names them"], "\(r.stdout)")
    }

    /// `-` twice read nothing the second time, and `-0` with no `-` changed nothing: both unsaid, exit 0. Usage errors.
    @Test func aSecondDashOrMinus0WithoutADashIsAUsageError() throws {
        let dir = try TemporaryDirectory()
        let twice = try kiln(["export", "-", "-", "--output", dir.join("out"), "--progress", "none"],
                             stdin: Paths.sampleData + "/rgb8.png\n")
        #expect(twice.status == 64 && twice.stderr.contains("- is given more than once"), "\(twice.stderr)")
        let null = try kiln(["export", "-0", Paths.sampleData + "/rgb8.png", "--output", dir.join("out"), "--progress", "none"])
        #expect(null.status == 64 && null.stderr.contains("no - is given"), "\(null.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.join("out")))
    }

    @Test(arguments: [false, true])
    func emptyListSaysTheListNamedNoFiles(nul: Bool) throws {
        let dir = try TemporaryDirectory()
        let r = try kiln(["export"] + (nul ? ["-0"] : []) + ["-", "--output", dir.join("out"), "--progress", "none"],
                         stdin: nul ? "\0\0" : "\n\n")
        #expect(r.status == 64)
        #expect(r.stderr.contains("the list on standard input named no files"), "\(r.stderr)")
        #expect(!r.stderr.contains("directories give"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.join("out")))
    }
}
