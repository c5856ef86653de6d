import Foundation
import KilnTestSupport
import Testing

/// The kernel's memory pressure (PSI; SPEC §10) through the CLI: short memory is
/// one warning and the same outputs; low pressure, or no file, changes nothing.
/// `KILN_TEST_PRESSURE_FILE` stands in for /proc/pressure/memory. (That one image
/// at a time is admitted while memory is short: ExportTests' MemoryPressureTests.)
@Suite(.serialized) struct MemoryPressureTests {
    private func fileEvents(_ child: ChildProcess) -> Int {
        child.stdoutSoFar.components(separatedBy: "\"event\":\"file\"").count - 1
    }

    private func pressureFile(_ dir: TemporaryDirectory, some avg10: Double) throws -> String {
        let path = dir.join("memory")
        try "some avg10=\(avg10) avg60=1.00 avg300=0.50 total=123456\nfull avg10=1.00 avg60=0.00 avg300=0.00 total=100\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func shortMemoryIsOneWarningAndTheSameOutputs() throws {
        let dir = try TemporaryDirectory()
        let out = dir.join("out")
        let child = try startKiln(["export", LargeImages.directory, "--output", out, "--progress", "json", "--jobs", "2",
                                   "--notify", "none", "--grace", "60"],
                                  environment: ["KILN_TEST_PRESSURE_FILE": try pressureFile(dir, some: 42.5)])
        #expect(child.waitUntil { fileEvents(child) >= 3 })
        child.send(SIGINT)
        let r = try child.wait(timeout: .seconds(120))
        #expect(r.status == 75, "\(r.stderr)")
        let events = Events(r.stdoutLines)
        let warnings = events.named("warning").map { $0[string: "message"] }
        #expect(warnings.count == 1 && warnings[0].contains("memory is short"), "\(warnings)")
        #expect(try kiln(["resume", out, "--progress", "none", "--notify", "none"]).status == 0)
        #expect(LargeImages.matchesReference(out) == [])
    }

    @Test(arguments: [false, true])
    func noPressureOrNoFileChangesNothing(_ fileExists: Bool) throws {
        let dir = try TemporaryDirectory()
        let file = fileExists ? try pressureFile(dir, some: 0.5) : dir.join("absent")
        let r = try kiln(["export", SmallImages.directory, "--output", dir.join("out"), "--progress", "json",
                          "--notify", "none"] + SmallImages.operations,
                         environment: SmallImages.environment.merging(["KILN_TEST_PRESSURE_FILE": file]) { $1 })
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Events(r.stdoutLines).named("warning").isEmpty)
        #expect(SmallImages.mismatches(dir.join("out")) == [])
    }
}
