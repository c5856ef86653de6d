import Export
import Foundation
import ImageCore
import KilnTestSupport
import Testing

/// `InputCollector`: which inputs a job has and where each output goes (SPEC §5).
@Suite("planning: inputs and their outputs")
struct PlanningTests {
    @Test("a directory gives its *.png files (any case), hidden ones and others left out; --recursive descends")
    func directories() throws {
        let work = try TemporaryDirectory()
        let input = work.join("in")
        try ExportFixtures.png(at: input + "/b.png")
        try ExportFixtures.png(at: input + "/A.PNG")
        try ExportFixtures.png(at: input + "/.hidden.png")
        try ExportFixtures.file(at: input + "/notes.txt", "x")
        try ExportFixtures.png(at: input + "/sub/c.png")
        var options = ExportOptions(inputs: [input], outputDirectory: work.join("out"))
        #expect(try InputCollector(options: options).collect().map(\.output) == ["A.png", "b.png"])
        options.recursive = true
        let items = try InputCollector(options: options).collect()
        #expect(items.map(\.output) == ["A.png", "b.png", "sub/c.png"])
        #expect(items.map(\.input) == [input + "/A.PNG", input + "/b.png", input + "/sub/c.png"])
        #expect(items.allSatisfy { $0.problem == nil })
    }

    @Test("a scan picks up .jpe and .jfif as JPEG, as libvips does, and names their outputs .jpg")
    func jpegsOtherNames() throws {
        let work = try TemporaryDirectory()
        for name in ["a.jpe", "b.JFIF", "c.jif"] { try ExportFixtures.file(at: work.join("in/" + name), "x") }
        let scan = try InputCollector(options: ExportOptions(inputs: [work.join("in")], outputDirectory: "/tmp/none")).scan()
        #expect(scan.items.map(\.output) == ["a.jpg", "b.jpg"])
        #expect(scan.ignored.files.map(\.path) == [work.join("in/c.jif")])
    }

    @Test("files keep a relative path; absolute or climbing paths keep their name; - reads paths from stdin")
    func files() throws {
        var collector = InputCollector(options: ExportOptions(inputs: ["a/b/photo.jpeg", "/abs/x.png", "../up/y", "-"],
                                                              outputDirectory: "/tmp/none"))
        collector.readStandardInput = { Data("./s/one.png\n\nz.PNG\n".utf8) }
        // Each in the format its name says (JPEG: .jpg); a name that says none, and no content to read: PNG.
        #expect(try collector.collect().map(\.output) == ["a/b/photo.jpg", "x.png", "y.png", "s/one.png", "z.png"])
        var options = collector.options
        options.plan.output.format = .webp
        collector = InputCollector(options: options)
        collector.readStandardInput = { Data("./s/one.png\n".utf8) }
        #expect(try collector.collect().map(\.output) == ["a/b/photo.webp", "x.webp", "y.webp", "s/one.webp"])
    }

    @Test("two inputs with the same output: the second fails naming the first")
    func collisions() throws {
        let items = try InputCollector(options: ExportOptions(inputs: ["/one/a.png", "/two/a.png"], outputDirectory: "/tmp/none"))
            .collect()
        #expect(items.map(\.output) == ["a.png", "a.png"])
        #expect(items[0].problem == nil)
        #expect(items[1].problem?.contains("/one/a.png") == true)
    }

    @Test("of two inputs for one output, the one whose name it is keeps it, whichever comes first")
    func theOutputsOwnNameKeepsIt() throws {
        let work = try TemporaryDirectory()
        for name in ["a.PNG", "a.png", "b.jpeg", "b.jpg"] { try ExportFixtures.png(at: work.join("in/" + name)) }
        let items = try InputCollector(options: ExportOptions(inputs: [work.join("in")], outputDirectory: "/tmp/none")).collect()
        // Byte order puts a.PNG before a.png and b.jpeg before b.jpg: the first of each pair kept it before.
        #expect(items.map(\.input) == ["a.PNG", "a.png", "b.jpeg", "b.jpg"].map { work.join("in/" + $0) })
        #expect(items.map { $0.problem == nil } == [false, true, false, true], "\(items)")
        #expect(items[0].problem == "its output a.png is also the output of \(work.join("in/a.png")), whose name it is")
        // Named the other way round, the one named first keeps it as before.
        let pair = try InputCollector(options: ExportOptions(inputs: ["/one/a.png", "/two/a.PNG"], outputDirectory: "/tmp/none"))
            .collect()
        #expect(pair.map { $0.problem == nil } == [true, false], "\(pair)")
        // Three for one output: each that yields names the one that keeps it (not another that yields).
        let three = try InputCollector(options: ExportOptions(inputs: ["/x/a.JPG", "/y/a.jpeg", "/z/a.jpg"],
                                                              outputDirectory: "/tmp/none")).collect()
        #expect(three.map(\.problem) == ["its output a.jpg is also the output of /z/a.jpg, whose name it is",
                                         "its output a.jpg is also the output of /z/a.jpg, whose name it is", nil])
        // The keeper named first: the one after it is told whose name the output is too.
        let keeperFirst = try InputCollector(options: ExportOptions(inputs: ["/x/a.png", "/y/a.PNG"], outputDirectory: "/tmp/none"))
            .collect()
        #expect(keeperFirst.map(\.problem) == [nil, "its output a.png is also the output of /x/a.png, whose name it is"])
        // The folder named twice: each file once, the one that yields failing once (it failed twice, a third item).
        let twice = try InputCollector(options: ExportOptions(inputs: [work.join("in"), work.join("in")], outputDirectory: "/tmp/none"))
            .scan()
        #expect(twice.items.map(\.input) == ["a.PNG", "a.png", "b.jpeg", "b.jpg"].map { work.join("in/" + $0) }, "\(twice.items)")
        #expect(twice.repeated.count == 4, "\(twice.repeated)")
        // Neither has the output's name (a.jpg and a.webp under --format png): the first keeps it.
        var png = ExportOptions(inputs: ["/x/a.jpg", "/y/a.webp"], outputDirectory: "/tmp/none")
        png.plan.output.format = .png
        let neither = try InputCollector(options: png).collect()
        #expect(neither.map(\.problem) == [nil, "its output a.png is also the output of /x/a.jpg"])
    }

    @Test("an output that is another's folder fails, the later of the two, the same every run")
    func aFileAndAFolderCannotShareAName() throws {
        let work = try TemporaryDirectory()
        try ExportFixtures.png(at: work.join("in/x.PNG"))
        try ExportFixtures.png(at: work.join("in/x.png/inner.png"))
        var options = ExportOptions(inputs: [work.join("in")], outputDirectory: "/tmp/none")
        options.recursive = true
        let items = try InputCollector(options: options).collect()
        #expect(items.map(\.output) == ["x.png", "x.png/inner.png"])
        #expect(items[0].problem == nil)
        #expect(items[1].problem == "its output needs a folder x.png, which is the output of \(work.join("in/x.PNG")); "
                + "a file and a folder cannot share a name")
        // The folder's output first: the file's output is that folder.
        let named = try InputCollector(options: ExportOptions(inputs: ["d/x.png/inner.png", "d/x.png.jpg"],
                                                              outputDirectory: "/tmp/none")).collect()
        #expect(named.map(\.output) == ["d/x.png/inner.png", "d/x.png.jpg"])
        #expect(named.allSatisfy { $0.problem == nil }, "x.png.jpg is no folder of x.png/: \(named)")
        var png = ExportOptions(inputs: ["d/x.png/inner.png", "d/x.jpg"], outputDirectory: "/tmp/none")
        png.plan.output.format = .png
        let clash = try InputCollector(options: png).collect()
        #expect(clash.map(\.output) == ["d/x.png/inner.png", "d/x.png"])
        #expect(clash[1].problem == "its output d/x.png is a folder of d/x.png/inner.png's output; a file and a folder cannot share a name")
    }

    @Test("the scan lists every folder it reaches, an output directory inside the input too (the job refuses that layout)")
    func outputInsideInput() throws {
        let work = try TemporaryDirectory()
        try ExportFixtures.png(at: work.join("in/a.png"))
        try ExportFixtures.png(at: work.join("in/out/old.png"))
        var options = ExportOptions(inputs: [work.join("in")], outputDirectory: work.join("in/out"))
        options.recursive = true
        // Listed, so that a caller that skips OutputSafety still has them as inputs, which are never written over.
        #expect(try InputCollector(options: options).collect().map(\.output) == ["a.png", "out/old.png"])
        #expect(throws: ExportError.outputInsideRecursiveInput(work.join("in/out"), input: work.join("in"))) {
            try OutputSafety.check(options)
        }
    }

    @Test("an output directory inside a recursive input is refused at any depth, made or not, by any path; without --recursive it is allowed")
    func outputInsideRecursiveInput() throws {
        let work = try TemporaryDirectory()
        try ExportFixtures.png(at: work.join("in/sub/a.png"))
        try FileManager.default.createSymbolicLink(atPath: work.join("link"), withDestinationPath: work.join("in"))
        for output in ["in/sub", "in/sub/not/made", "link/sub", "in/sub/../new"] {
            var options = ExportOptions(inputs: [work.join("in")], outputDirectory: work.join(output))
            options.recursive = true
            #expect(throws: ExportError.outputInsideRecursiveInput(work.join(output), input: work.join("in"))) {
                try OutputSafety.check(options)
            }
            options.overwrite = true  // never lets outputs land on inputs
            #expect(throws: ExportError.outputInsideRecursiveInput(work.join(output), input: work.join("in"))) {
                try OutputSafety.check(options)
            }
            options.recursive = false  // the scan never leaves in/
            #expect(throws: Never.self) { try OutputSafety.check(options) }
        }
        // Beside the input, or holding it, is not inside it.
        for output in ["out", "in-out", "."] {
            var options = ExportOptions(inputs: [work.join("in")], outputDirectory: work.join(output))
            options.recursive = true
            #expect(throws: Never.self, "\(output)") { try OutputSafety.check(options) }
        }
        #expect(!FileManager.default.fileExists(atPath: work.join("in/sub/not")), "a check makes nothing")
    }

    @Test("the job as a whole: an input directory is never the output directory, --overwrite or not; a file is no output directory")
    func outputSafety() throws {
        let work = try TemporaryDirectory()
        try ExportFixtures.png(at: work.join("in/a.png"))
        var options = ExportOptions(inputs: [work.join("in")], outputDirectory: work.join("in"))
        #expect(throws: ExportError.outputIsInputDirectory(work.join("in"))) { try OutputSafety.check(options) }
        options.overwrite = true  // never lets outputs replace inputs
        #expect(throws: ExportError.outputIsInputDirectory(work.join("in"))) { try OutputSafety.check(options) }
        let file = ExportOptions(inputs: [work.join("in")], outputDirectory: work.join("in/a.png"))
        #expect(throws: ExportError.badOutputDirectory(work.join("in/a.png"), reason: "exists and is not a directory")) {
            try OutputSafety.check(file)
        }
    }
}
