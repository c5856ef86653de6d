import Foundation
import Testing

/// Every unit under deploy/systemd is one `systemd-analyze verify` accepts
/// (templates are verified as an instance, as systemd-analyze does).
@Suite struct SystemdUnitTests {
    static let analyze = "/usr/bin/systemd-analyze"

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: analyze),
                   "systemd-analyze is missing (Debian's systemd package; Scripts/setup installs it)"))
    func systemdAnalyzeVerifiesEveryUnit() throws {
        let folder = Paths.repository + "/deploy/systemd"
        let units = try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { name in [".service", ".path", ".timer"].contains { name.hasSuffix($0) } }.sorted()
        #expect(units.contains("kiln-export@.service"))
        let r = try ProcessRunner.run(Self.analyze, ["verify"] + units.map { folder + "/" + $0 })
        #expect(r.status == 0 && r.stderr.isEmpty && r.stdout.isEmpty, "\(r.stdout)\(r.stderr)")
    }
}
