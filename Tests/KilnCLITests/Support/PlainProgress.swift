import Foundation
import KilnTestSupport

/// `kiln export INPUT -o OUTPUT --progress plain` on the CPU, one image at a time, held after its first image
/// (the stall hook) until a progress line (shown every 10 seconds) is seen, then let go: whether the line came
/// within two minutes, and how the run ended.
func exportShowingAProgressLine(_ input: String, to output: String, release: String) throws -> (shown: Bool, ChildProcess.Outcome) {
    let child = try startKiln(["export", input, "-o", output, "--device", "cpu", "--progress", "plain",
                               "--jobs", "1", "--stall-timeout", "600"],
                              environment: ["KILN_TEST_STALL_AFTER": "1", "KILN_TEST_STALL_RELEASE": release])
    let shown = child.waitUntil(timeout: .seconds(120)) { child.stderrSoFar.contains("% · ") }
    _ = FileManager.default.createFile(atPath: release, contents: Data())
    return (shown, try child.wait())
}
