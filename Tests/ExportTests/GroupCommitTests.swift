import Compute
import Export
import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Render
import Testing

/// Group commit (`Durability`): at every level an image is reported only once
/// its output is in place and its record is in the journal, matching it; the
/// progress fraction, weighted by pixels learned as images are read, ends at 1.
@Suite("group commit")
struct GroupCommitTests {
    /// A job over `count` small images of two sizes.
    private static func setUp(_ work: TemporaryDirectory, count: Int) throws -> (ExportOptions, [ExportItem]) {
        for index in 0..<count {
            try ExportFixtures.png(at: work.join(String(format: "in/%03d.png", index)), width: index % 2 == 0 ? 8 : 16,
                                   height: 8, shade: UInt8(index % 200))
        }
        var options = ExportOptions(inputs: [work.join("in")], outputDirectory: work.join("out"))
        options.plan = ExportPlan(operations: [.resize(Resize(width: 4, height: 4))], level: 6)
        options.jobs = 2
        return (options, try InputCollector(options: options).collect())
    }

    @Test("an image is reported only once its output is in place and recorded", arguments: Durability.allCases)
    func reportedOnlyWhenCommitted(_ durability: Durability) throws {
        let work = try TemporaryDirectory()
        let (options, items) = try Self.setUp(work, count: 300)
        let journal = Journal(outputDirectory: options.outputDirectory)
        try journal.start(JobRecord(id: "j", options: options, device: "cpu", title: nil, subtitle: nil, items: items))
        let renderer = Renderer(backend: CPUBackend(), operations: options.plan.operations, maxPixels: options.maxPixels,
                                allowFallback: false, warn: { Issue.record("unexpected warning: \($0)") })
        let job = ExportJob(options: options, items: items, output: try OutputDirectory(path: options.outputDirectory),
                            renderer: renderer, journal: journal, durability: durability)
        let problems = FailureList()
        var hooks = ExportJob.Hooks()
        hooks.onResult = { result in
            // At the moment of the report: the output is whole at its path and the journal records exactly it.
            let name = (result.output as NSString).lastPathComponent
            guard result.status == .written, let data = FileManager.default.contents(atPath: result.output) else {
                return problems.append("\(name): \(result.status) without its output")
            }
            guard let record = journal.finished()[name] else { return problems.append("\(name): reported before recorded") }
            if record.size != data.count || record.crc32 != CRC32.checksum(data) {
                problems.append("\(name): the record does not match the output")
            }
        }
        let progress = Progress(totalUnitCount: 1)
        let counts = job.run(progress: progress, hooks: hooks)
        #expect(problems.all == [], "--durability \(durability)")
        #expect(counts.written == 300 && counts.completed == 300)
        #expect(job.snapshot.fraction == 1 && progress.fractionCompleted == 1)
        let temporaries = try FileManager.default.contentsOfDirectory(atPath: options.outputDirectory + "/.kiln/tmp")
        #expect(temporaries == [], "every staged output was put in place")
    }
}
