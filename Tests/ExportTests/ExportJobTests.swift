import Compute
import Export
import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Render
import Testing

/// `ExportJob` without the CLI: failures stay with their item, the journal
/// records every item, and a resumed job redoes exactly what is not verified.
@Suite("export job")
struct ExportJobTests {
    /// A job over three PNGs, a text file posing as one, and a crop that misses the small image.
    static func setUp(_ work: TemporaryDirectory) throws -> (ExportOptions, [ExportItem]) {
        try ExportFixtures.png(at: work.join("in/a.png"), width: 9, height: 7, shade: 1)
        try ExportFixtures.png(at: work.join("in/b.png"), width: 9, height: 7, shade: 2)
        try ExportFixtures.png(at: work.join("in/small.png"), width: 2, height: 2, shade: 3)
        try ExportFixtures.file(at: work.join("in/text.png"), "not a PNG")
        var options = ExportOptions(inputs: [work.join("in")], outputDirectory: work.join("out"))
        options.plan = ExportPlan(operations: [.crop(Crop(x: 3, y: 3, width: 4, height: 4)), .blur(Blur(sigma: 1))], level: 1)
        options.jobs = 2
        return (options, try InputCollector(options: options).collect())
    }

    static func job(_ options: ExportOptions, _ items: [ExportItem], finishedBefore: [String: FinishedRecord] = [:]) throws -> ExportJob {
        let renderer = Renderer(backend: CPUBackend(), operations: options.plan.operations, maxPixels: options.maxPixels,
                                allowFallback: false, warn: { Issue.record("unexpected warning: \($0)") })
        return ExportJob(options: options, items: items, output: try OutputDirectory(path: options.outputDirectory), renderer: renderer,
                         journal: Journal(outputDirectory: options.outputDirectory), finishedBefore: finishedBefore)
    }

    @Test("bad inputs fail alone, with a reason and no output; every item is journaled")
    func failuresAreConfined() throws {
        let work = try TemporaryDirectory()
        let (options, items) = try Self.setUp(work)
        try Journal(outputDirectory: options.outputDirectory).start(
            JobRecord(id: "j", options: options, device: "cpu", title: nil, subtitle: nil, items: items))
        let results = FailureList()
        var hooks = ExportJob.Hooks()
        hooks.onResult = { result in results.append("\((result.input as NSString).lastPathComponent) \(result.status) \(result.error ?? "")") }
        let counts = try Self.job(options, items).run(hooks: hooks)
        #expect(counts.written == 2 && counts.failed == 2 && counts.completed == 4)
        let lines = results.all.sorted()
        #expect(lines[0].hasPrefix("a.png written") && lines[1].hasPrefix("b.png written"), "\(lines)")
        #expect(lines[2].hasPrefix("small.png failed") && lines[2].contains("lies outside the 2×2 image"), "\(lines)")
        #expect(lines[3].hasPrefix("text.png failed") && lines[3].count > "text.png failed ".count, "\(lines)")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: options.outputDirectory)) == [".kiln", "a.png", "b.png"])
        let finished = Journal(outputDirectory: options.outputDirectory).finished()
        #expect(finished.count == 4)
        for name in ["a.png", "b.png"] {
            let data = try #require(FileManager.default.contents(atPath: options.outputDirectory + "/" + name))
            #expect(finished[name]?.size == data.count && finished[name]?.crc32 == CRC32.checksum(data))
            #expect(try PNGDecoder.decode(Array(data)).width == 4)
        }
    }

    @Test("a resumed job keeps verified outputs, redoes altered ones and failures, and ends as an uninterrupted run")
    func resume() throws {
        let work = try TemporaryDirectory()
        let (options, items) = try Self.setUp(work)
        let journal = Journal(outputDirectory: options.outputDirectory)
        try journal.start(JobRecord(id: "j", options: options, device: "cpu", title: nil, subtitle: nil, items: items))
        try Self.job(options, items).run()
        let a = try #require(FileManager.default.contents(atPath: options.outputDirectory + "/a.png"))
        let b = try #require(FileManager.default.contents(atPath: options.outputDirectory + "/b.png"))
        // As if the machine lost b.png's last bytes: its record no longer matches.
        try b.dropLast(5).write(to: URL(fileURLWithPath: options.outputDirectory + "/b.png"))
        let verified = journal.verifiedFinished(in: try OutputDirectory(path: options.outputDirectory))
        #expect(verified.keys.sorted() == ["a.png"])
        try FileManager.default.removeItem(atPath: options.outputDirectory + "/b.png")
        let resumed = try Self.job(options, items, finishedBefore: verified)
        #expect(resumed.remaining.map(\.output) == ["b.png", "small.png", "text.png"])
        let counts = resumed.run()
        #expect(counts.completed == 4 && counts.written == 2 && counts.failed == 2)
        #expect(FileManager.default.contents(atPath: options.outputDirectory + "/a.png") == a)
        #expect(FileManager.default.contents(atPath: options.outputDirectory + "/b.png") == b)
    }

    @Test("a stop before the first image leaves nothing written and everything remaining")
    func stop() throws {
        let work = try TemporaryDirectory()
        let (options, items) = try Self.setUp(work)
        let job = try Self.job(options, items)
        job.stop()
        let counts = job.run()
        #expect(counts.completed == 0 && job.isStopped && !job.isComplete)
        #expect(job.remaining.count == items.count)
        #expect(try FileManager.default.contentsOfDirectory(atPath: options.outputDirectory) == [".kiln"])
    }
}
