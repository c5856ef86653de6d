import Foundation
import KilnTestSupport
import Testing

/// Must-show 7 (second half): a job stopped by SIGINT and resumed writes
/// exactly the bytes an uninterrupted run writes, for every output format.
@Suite(.serialized) struct FormatResumeTests {
    /// A folder of 8 photo-sized JPEGs, 2 PNGs and 2 WebPs, made once.
    static let inputs: String = {
        let dir = testScratch + "/format-resume"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for index in 0..<12 {
            let png = LargeImages.directory + String(format: "/photo%02d.png", index)
            let name = String(format: "/photo%02d.", index)
            if index < 8 {
                _ = try? ImageTools.run("convert", [png, "-quality", "92", dir + name + "jpg"])
            } else if index < 10 {
                try? FileManager.default.copyItem(atPath: png, toPath: dir + name + "png")
            } else {
                _ = try? ImageTools.run("cwebp", ["-quiet", "-q", "90", png, "-o", dir + name + "webp"])
            }
        }
        return dir
    }()

    @Test(.enabled(if: ImageTools.has("convert") && ImageTools.has("cwebp"), "needs ImageMagick and cwebp"),
          arguments: ["same", "png", "jpeg", "webp"])
    func aResumedJobMatchesAnUninterruptedOne(format: String) throws {
        let environment = ["SOURCE_DATE_EPOCH": "1700000000"]
        let options = ["--format", format, "--resize", "600x600", "--device", "cpu", "--progress", "json", "--jobs", "1"]
        let whole = try TemporaryDirectory()
        let reference = try kiln(["export", Self.inputs, "-o", whole.path] + options, environment: environment)
        #expect(reference.status == 0, "\(reference.stderr)")

        let out = try TemporaryDirectory()
        var stalled = environment
        stalled["KILN_TEST_STALL_AFTER"] = "4"
        let child = try startKiln(["export", Self.inputs, "-o", out.path, "--stall-timeout", "600"] + options,
                                  environment: stalled)
        let outputs = { (try? FileManager.default.contentsOfDirectory(atPath: out.path))?.filter { $0 != ".kiln" } ?? [] }
        #expect(child.waitUntil { outputs().count >= 4 })
        child.send(SIGINT)
        #expect(try child.wait(timeout: .seconds(60)).status == 75)
        #expect(outputs().count < 12, "the job was interrupted")
        let resumed = try kiln(["resume", out.path, "--progress", "json"], environment: environment)
        #expect(resumed.status == 0, "\(resumed.stderr)")

        let names = try FileManager.default.contentsOfDirectory(atPath: whole.path).filter { $0 != ".kiln" }.sorted()
        #expect(names.count == 12)
        #expect(outputs().sorted() == names)
        for name in names {
            let a = FileManager.default.contents(atPath: whole.join(name))
            let b = FileManager.default.contents(atPath: out.join(name))
            #expect(a != nil && a == b, "\(name) differs from the uninterrupted run's")
        }
    }
}
