import Foundation
import KilnTestSupport
import Testing

/// Batch durability holds each finished image's staged output open until its
/// group commit; with the waiting bounded only by a constant, 100,000 tiny
/// inputs under `ulimit -Sn 256` failed by the tens of thousands with "Too many
/// open files". kiln raises its soft limit and sizes the commit to the limit in
/// force, so every image is written whatever the limit.
@Suite struct OpenFileLimitTests {
    static let count = 100_000

    /// Under the soft limit alone (kiln may raise it to the hard one) and under
    /// both (kiln must live within 256), on one folder of 100,000 copies of a small PNG.
    @Test func aHundredThousandInputsUnderALowOpenFileLimitAreAllWritten() throws {
        let dir = try TemporaryDirectory()
        let png = try Data(contentsOf: URL(fileURLWithPath: Paths.sampleData + "/gray2.png"))
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        for index in 0..<Self.count {
            try png.write(to: URL(fileURLWithPath: dir.join("in") + String(format: "/i%06d.png", index)))
        }
        for limit in ["-Sn 256", "-n 256"] { try export(dir, under: limit) }
    }

    private func export(_ dir: TemporaryDirectory, under limit: String) throws {
        let out = dir.join("out-" + limit.replacingOccurrences(of: " ", with: ""))
        // Measured at about 0.4 ms an image (debug build, 2 cores); ten milliseconds
        // an image leaves room for a loaded machine.
        let timeout = Duration.milliseconds(10 * Self.count)
        let r = try ProcessRunner.run("/bin/bash", ["-c", "ulimit \(limit) && exec \"$0\" \"$@\"", Paths.kiln,
                                                    "export", dir.join("in"), "--output", out, "--progress", "none"],
                                      environment: ["KILN_RUNTIME_DIR": dir.join("slots")], timeout: timeout)
        #expect(r.status == 0, "\(r.stderr.suffix(2000))")
        #expect(!r.stderr.contains("Too many open files"))
        let written = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".png") }
        #expect(written.count == Self.count)
        // Every output is whole: the same size as the first (one picture, one set of options).
        let sizes = Set(try written.map {
            try FileManager.default.attributesOfItem(atPath: out + "/" + $0)[.size] as? Int ?? -1
        })
        #expect(sizes.count == 1 && sizes.first.map { $0 > 0 } == true)
    }
}
