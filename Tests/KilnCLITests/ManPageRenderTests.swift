import Foundation
import KilnTestSupport
import Testing

/// The committed man page renders every range and symbol of the help and is
/// lint-clean. (Issue 24: `man -l` showed `0…9` as "09" and `1…65536` as
/// "165536" and warned "Empty input line"; `mandoc -T lint` warned on every paragraph.)
@Suite struct ManPageRenderTests {
    private let page = Paths.repository + "/docs/man/kiln.1"

    @Test func mandocLintPrintsNothing() throws {
        let mandoc = "/usr/bin/mandoc"
        try #require(FileManager.default.isExecutableFile(atPath: mandoc), "mandoc is missing: run Scripts/setup")
        let r = try ProcessRunner.run(mandoc, ["-T", "lint", "-W", "style", page])
        #expect(r.stdout.isEmpty && r.stderr.isEmpty, "\(r.stdout)\(r.stderr)")
    }

    /// In a UTF-8 locale, as terminals have (groff's ASCII device, in the C locale, has no "…").
    @Test func renderedPageKeepsEveryRangeAndWarnsNothing() throws {
        let r = try ProcessRunner.run("/usr/bin/man", ["-l", page], environment: ["MANWIDTH": "200", "LC_ALL": "C.UTF-8"])
        #expect(r.status == 0)
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        for text in ["0…9", "1…65536", "-100…100", "0.01…1000", "resolution, …)"] {
            #expect(r.stdout.contains(text), "the rendered page lacks \(text)")
        }
    }
}
