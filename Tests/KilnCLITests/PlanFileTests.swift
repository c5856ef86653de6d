import Export
import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// What made an output includes the bytes of the files its options name, and a resume makes the rest of a job
/// from the inputs and files as they are. Before: a `--watermark` file changed between two exports let the second
/// skip every output as the same work (stale, exit 0); a resume kept outputs whose input changed since they were
/// recorded, and drew another mark on the rest when the watermark changed; shards started with other options
/// were summed as one finished job without a word.
@Suite struct PlanFileTests {
    /// A folder with `in/` (SampleData's PNGs) and `wm.png`, an 8×8 mark of one colour.
    private func folder(mark: [UInt8]) throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory()
        try FileManager.default.copyItem(atPath: Paths.sampleData, toPath: dir.join("in"))
        try paint(dir.join("wm.png"), mark)
        return dir
    }

    private func paint(_ path: String, _ colour: [UInt8], width: Int = 8, height: Int = 8) throws {
        let bytes = [[UInt8]](repeating: colour + [255], count: width * height).flatMap { $0 }
        try Data(try PNGEncoder.encode(PixelBuffer(width: width, height: height, depth: .eight, bytes: bytes)))
            .write(to: URL(fileURLWithPath: path))
    }

    private var watermark: [String] { ["--watermark-margin", "0", "--watermark-scale", "1", "--device", "cpu"] }

    @Test func anOutputMadeWithAnotherWatermarkIsNotTheSameWork() throws {
        let dir = try folder(mark: [255, 0, 0])
        let args = ["export", dir.join("in"), "-o", dir.join("out"), "--watermark", dir.join("wm.png"), "--progress", "json"]
            + watermark
        let first = try kiln(args)
        #expect(first.status == 0, "\(first.stderr)")
        let count = Paths.pngs(in: dir.join("in")).count
        #expect(try kiln(args).status == 0, "the same mark again: the same work")
        try paint(dir.join("wm.png"), [0, 0, 255])
        let again = try kiln(args)
        #expect(again.status == 1, "\(again.stderr)")
        let conflicts = Events(again.stdoutLines).files("conflict")
        #expect(conflicts.count == count && Events(again.stdoutLines).files("skipped").isEmpty, "\(again.stdout)")
        #expect(conflicts.allSatisfy { $0[string: "error"].contains("watermark or profile file") }, "\(conflicts)")
        let forced = try kiln(args + ["--overwrite"])
        #expect(forced.status == 0 && Events(forced.stdoutLines).files("written").count == count, "\(forced.stderr)")
        // The mark covers the whole image (scale 1, margin 0): blue now.
        let made = try PNGDecoder.decode(contentsOf: dir.join("out/rgb8.png"))
        #expect(Array(made.bytes.prefix(3)) == [0, 0, 255], "\(Array(made.bytes.prefix(4)))")
    }

    /// An output an earlier kiln recorded with a watermark (its plan's digest without the file's bytes) is a conflict
    /// saying so: that kiln cannot say whether the file changed since. The record is made as it wrote it: this kiln's,
    /// its digest replaced by the one of the same plan without `files`.
    @Test func anOutputAnEarlierKilnMadeWithAWatermarkIsSaidToBeThat() throws {
        let dir = try folder(mark: [255, 0, 0])
        let args = ["export", dir.join("in/rgb8.png"), "-o", dir.join("out"), "--watermark", dir.join("wm.png"),
                    "--progress", "json"] + watermark
        let first = try kiln(args + ["--keep-journal"])
        #expect(first.status == 0, "\(first.stderr)")
        let job = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.join("out/.kiln/job.json"))))
        var plan = try JSONDecoder().decode(ExportPlan.self, from: JSONSerialization.data(withJSONObject:
            ((job as? [String: Any])?["options"] as? [String: Any])?["plan"] ?? [:]))
        let digest = Provenance.digest(of: plan)
        plan.files = []
        let finished = dir.join("out/.kiln/finished.ndjson")
        let records = try String(contentsOfFile: finished, encoding: .utf8)
        try #require(records.contains("\"plan\":\"\(digest)\""), "\(records)")
        try records.replacingOccurrences(of: "\"plan\":\"\(digest)\"", with: "\"plan\":\"\(Provenance.digest(of: plan))\"")
            .write(toFile: finished, atomically: true, encoding: .utf8)
        let again = try kiln(args)
        #expect(again.status == 1, "\(again.stderr)")
        let conflicts = Events(again.stdoutLines).files("conflict")
        #expect(conflicts.count == 1 && conflicts[0][string: "error"].contains("made by an earlier kiln"), "\(again.stdout)")
    }

    /// A job with a watermark stopped after 2 of SampleData's images (`--jobs 1`).
    private func stoppedJob(_ dir: TemporaryDirectory) throws {
        let r = try kiln(["export", dir.join("in"), "-o", dir.join("out"), "--watermark", dir.join("wm.png"), "--jobs", "1",
                          "--stall-timeout", "1", "--progress", "none"] + watermark,
                         environment: ["KILN_TEST_STALL_AFTER": "2"], timeout: .seconds(60))
        try #require(r.status == 75, "\(r.stderr)")
        try #require(Paths.pngs(in: dir.join("out")).count == 2)
    }

    @Test func resumeRefusesAChangedWatermark() throws {
        let dir = try folder(mark: [255, 0, 0])
        try stoppedJob(dir)
        try paint(dir.join("wm.png"), [0, 0, 255])
        let r = try kiln(["resume", dir.join("out"), "--progress", "none"])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("--watermark") && r.stderr.contains(dir.join("wm.png")) && r.stderr.contains("changed"),
                "\(r.stderr)")
        #expect(Paths.pngs(in: dir.join("out")).count == 2, "nothing written")
    }

    /// A shard's retry (the same command again) checks the files as a resume does: it started the shard afresh, and
    /// its outputs made with the file as it was became conflicts, exit 1.
    @Test func aShardsRetryRefusesAChangedWatermark() throws {
        let dir = try folder(mark: [255, 0, 0])
        let args = ["export", dir.join("in"), "-o", dir.join("out"), "--watermark", dir.join("wm.png"), "--shard", "0/2",
                    "--jobs", "1", "--stall-timeout", "1", "--progress", "none"] + watermark
        let first = try kiln(args, environment: ["KILN_TEST_STALL_AFTER": "1"], timeout: .seconds(60))
        try #require(first.status == 75, "\(first.stderr)")
        try paint(dir.join("wm.png"), [0, 0, 255])
        let retry = try kiln(args)
        #expect(retry.status == 64, "\(retry.stderr)")
        #expect(retry.stderr.contains("--watermark") && retry.stderr.contains("changed"), "\(retry.stderr)")
    }

    @Test func resumeMakesAgainAnOutputWhoseInputChanged() throws {
        let dir = try folder(mark: [255, 0, 0])
        try stoppedJob(dir)
        let made = Paths.pngs(in: dir.join("out"))
        // The first recorded output's input, rewritten: 5×3 and green, where the mark (8×8, scaled to the image) is red.
        let changed = made[0]
        try paint(dir.join("in/" + changed), [0, 255, 0], width: 5, height: 3)
        let r = try kiln(["resume", dir.join("out"), "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let remade = Events(r.stdoutLines).files("written").map { URL(fileURLWithPath: $0[string: "output"]).lastPathComponent }
        #expect(remade.contains(changed) && !remade.contains(made[1]), "\(remade)")
        let header = try PNGDecoder.readHeader(contentsOf: dir.join("out/" + changed))
        #expect(header.width == 5 && header.height == 3, "made from the input as it is now: \(header.width)×\(header.height)")
        #expect(Paths.pngs(in: dir.join("out")) == Paths.pngs(in: dir.join("in")))
    }

    @Test func shardsStartedWithOtherOptionsAreSaid() throws {
        let dir = try folder(mark: [255, 0, 0])
        for (shard, options) in [("0/2", ["--resize", "8x"]), ("1/2", [])] {
            let r = try kiln(["export", dir.join("in"), "-o", dir.join("out"), "--shard", shard, "--progress", "none"] + options)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let status = try kiln(["status", dir.join("out"), "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any] ?? [:]
        let warnings = object["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("shards were started with other options") }, "\(status.stdout)")
    }
}
