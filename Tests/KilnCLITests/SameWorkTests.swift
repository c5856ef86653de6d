import Foundation
import KilnTestSupport
import Testing

/// An output found in place without a journal record is judged by what this
/// work makes: the same chunks but for `tIME`, or — made on the other backend —
/// pixels within the documented 1-level agreement, is this same work, skipped;
/// and the record of a skip describes the file kept, so later runs agree.
@Suite struct SameWorkTests {
    /// PngSuite's inputs carrying tIME.
    private let timed = ["cm0n0g04.png", "cm7n0g04.png", "cm9n0g04.png"]

    /// Before: the third run of an untouched folder reported 3 conflicts and exited 1
    /// (the second run's skip recorded the checksum of bytes it made and dropped).
    @Test func anUntouchedFolderWithTimeStampsNeverConflictsWithItself() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        for name in timed {
            try FileManager.default.copyItem(atPath: Paths.pngSuite + "/" + name, toPath: dir.join("in/" + name))
        }
        let out = dir.join("out")
        let export = ["export", dir.join("in"), "--output", out, "--progress", "json"]
        // Runs at different times (their tIME differs): the first removes its journal after success.
        let first = try kiln(export, environment: ["SOURCE_DATE_EPOCH": "1700000000"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + "/.kiln"))
        for (run, epoch) in [(2, "1700000100"), (3, "1700000200")] {
            let r = try kiln(export + ["--keep-journal"], environment: ["SOURCE_DATE_EPOCH": epoch])
            #expect(r.status == 0, "run \(run): \(r.stderr)")
            #expect(Events(r.stdoutLines).files("conflict").isEmpty, "run \(run): \(r.stdout)")
            #expect(Events(r.stdoutLines).files("skipped").count == timed.count, "run \(run)")
        }
    }

    /// Before: 9 of 24 outputs made with `--device vulkan` were "conflicts" for the
    /// same command on `--device cpu`, exit 1.
    @Test func outputsOfTheSameOptionsOnTheOtherBackendAreTheSameWork() throws {
        try onDevice("vulkan") {
            let dir = try TemporaryDirectory()
            let options = ["--resize", "40x40", "--blur", "1.5", "--sharpen", "1", "--progress", "json"]
            let gpu = try kiln(["export", Paths.sampleData, "--output", dir.join("out"), "--device", "vulkan"] + options)
            #expect(gpu.status == 0, "\(gpu.stderr)")
            // The scenario needs outputs the backends make differently: a clean CPU export beside it.
            let cpu = try kiln(["export", Paths.sampleData, "--output", dir.join("cpu"), "--device", "cpu"] + options)
            #expect(cpu.status == 0, "\(cpu.stderr)")
            let names = Paths.pngs(in: dir.join("cpu"))
            let differing = names.filter {
                FileManager.default.contents(atPath: dir.join("out/" + $0)) != FileManager.default.contents(atPath: dir.join("cpu/" + $0))
            }
            #expect(!differing.isEmpty, "the backends made identical bytes: the test shows nothing")

            let again = try kiln(["export", Paths.sampleData, "--output", dir.join("out"), "--device", "cpu"] + options)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(Events(again.stdoutLines).files("conflict").isEmpty, "\(again.stdout)")
            #expect(Events(again.stdoutLines).files("skipped").count == names.count)

            // Other options are still a conflict: the tolerance is for pixels, not for work.
            let other = try kiln(["export", Paths.sampleData, "--output", dir.join("out"), "--device", "cpu",
                                  "--resize", "40x40", "--blur", "2", "--sharpen", "1", "--progress", "json"])
            #expect(other.status == 1)
            #expect(!Events(other.stdoutLines).files("conflict").isEmpty)
        }
    }
}
