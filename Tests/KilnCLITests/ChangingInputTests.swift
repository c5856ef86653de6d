import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// An input rewritten while it is exported (a `cp` over it, a `mv` onto its
/// name) never gives an output spliced from two images: its image fails,
/// "changed while being read", with no output, or — when the rewrite missed the
/// read — the output is exactly a clean export of one version.
@Suite(.serialized) struct ChangingInputTests {
    /// Two versions of one input, of the same size, and clean exports of each.
    private struct Versions {
        let old: [UInt8], new: [UInt8]
        let oldExport: [UInt8], newExport: [UInt8]
        /// How long a clean export of one version took (the yardstick for the waits).
        let exportTime: Duration
    }

    /// Outputs are byte-comparable across runs: the tIME chunk comes from here.
    private let environment = ["SOURCE_DATE_EPOCH": "1700000000"]

    /// A PNG of `width`×`height` whose every pixel depends on `seed`; `level` 0 (stored) keeps it
    /// as large as its pixels, past what kiln reads whole, so that it is streamed.
    private func image(width: Int, height: Int, seed: Int, level: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 255, count: width * height * 4)
        bytes.withUnsafeMutableBufferPointer { pixels in
            for y in 0..<height {
                for x in 0..<width {
                    let o = (y * width + x) * 4
                    pixels[o] = UInt8(truncatingIfNeeded: x &+ seed)
                    pixels[o + 1] = UInt8(truncatingIfNeeded: y &* 3 &+ seed)
                    pixels[o + 2] = UInt8(truncatingIfNeeded: (x ^ y) &+ seed &* 7)
                }
            }
        }
        return try PNGEncoder.encode(PixelBuffer(width: width, height: height, depth: .eight, bytes: bytes),
                                     options: .init(level: level))
    }

    /// Two versions of one input and their clean exports. `streamed`: larger than what kiln reads whole.
    private func versions(streamed: Bool, in dir: TemporaryDirectory) throws -> Versions {
        let (width, height, level) = streamed ? (1800, 1800, 0) : (600, 400, 1)
        let old = try image(width: width, height: height, seed: 1, level: level)
        let new = try image(width: width, height: height, seed: 2, level: level)
        if streamed { #expect(old.count == new.count && old.count > 8 << 20, "same size, past the whole-read limit") }
        var exports: [[UInt8]] = []
        var slowest = Duration.zero
        for (index, bytes) in [old, new].enumerated() {
            let folder = dir.join("clean-\(streamed ? "streamed" : "whole")-\(index)")
            try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: folder + "/in/x.png"))
            let r = try kiln(["export", folder + "/in/x.png", "--output", folder + "/out", "--progress", "json",
                              "--device", "cpu"], environment: environment)
            #expect(r.status == 0, "\(r.stdout)")
            exports.append(Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/out/x.png"))))
            slowest = max(slowest, r.elapsed)
        }
        #expect(exports[0] != exports[1])
        return Versions(old: old, new: new, oldExport: exports[0], newExport: exports[1], exportTime: slowest)
    }

    /// Rewrites `path` with `bytes`: as `cp` does (the same inode, truncated and written over) or as
    /// `mv` does (another file renamed onto the name).
    private func rewrite(_ path: String, with bytes: [UInt8], byRename: Bool) throws {
        if byRename {
            try Data(bytes).write(to: URL(fileURLWithPath: path + ".new"))
            #expect(rename(path + ".new", path) == 0)
            return
        }
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
            #expect(n > 0)
            if n <= 0 { return }
            offset += n
        }
    }

    /// What one export of an input rewritten under it gave. `failedAsEmpty`: read in the moment a
    /// `cp` had truncated the file and not yet written it (seen under load: CI with two `yes` beside
    /// it, round 12 of 20), kiln read an empty file, and still did when it looked again — a third
    /// version of the input, named truly ("the input is empty"), with no output.
    private enum Outcome: Equatable {
        case failedAsChanged, failedAsEmpty, old, new
    }

    /// Judges one run: failed with the reason and no output, or an output equal to a clean export.
    private func outcome(_ r: ChildProcess.Outcome, output: String, _ versions: Versions,
                         sourceLocation: SourceLocation = #_sourceLocation) -> Outcome? {
        let written = FileManager.default.contents(atPath: output).map(Array.init)
        if r.status == 1 && r.stdout.contains("changed while being read") {
            #expect(written == nil, "no output for a changed input", sourceLocation: sourceLocation)
            let failed = Events(r.stdoutLines).files("failed")
            #expect(failed.count == 1 && (failed.first?["error"] as? String)?.contains("changed while being read") == true,
                    "\(r.stdout)", sourceLocation: sourceLocation)
            return written == nil ? .failedAsChanged : nil
        }
        // Empty when the job looked (ImageCodecs), or when the PNG decoder read it.
        if r.status == 1 && (r.stdout.contains("the file is empty (0 bytes)") || r.stdout.contains("the input is empty")) {
            #expect(written == nil, "no output for an empty input", sourceLocation: sourceLocation)
            return written == nil ? .failedAsEmpty : nil
        }
        #expect(r.status == 0, "neither a clean export nor failed as changed: \(r.stdout)", sourceLocation: sourceLocation)
        if written == versions.oldExport { return .old }
        if written == versions.newExport { return .new }
        Issue.record("the output is neither version's export (spliced?)", sourceLocation: sourceLocation)
        return nil
    }

    /// At a known point — the input open, its header read, nothing decoded (`KILN_TEST_PAUSE_DECODE`) —
    /// the input is rewritten, 20 times: by `cp` and by `mv`, streamed and read whole. Each time, that
    /// image fails as changed (what was read may mix both versions) and nothing is written.
    @Test func anInputRewrittenDuringItsDecodeFailsAsChanged() throws {
        let dir = try TemporaryDirectory()
        let kinds = [false, true].map { streamed in (streamed, try? versions(streamed: streamed, in: dir)) }
        for round in 0..<20 {
            let (streamed, made) = kinds[round % 2]
            guard let versions = made else { Issue.record("no clean exports (streamed: \(streamed))"); return }
            let folder = dir.join("round\(round)"), input = folder + "/in/x.png", release = folder + "/release"
            try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
            try Data(versions.old).write(to: URL(fileURLWithPath: input))
            let child = try startKiln(["export", input, "--output", folder + "/out", "--progress", "json",
                                       "--jobs", "1", "--device", "cpu"],
                                      environment: environment.merging(["KILN_TEST_PAUSE_DECODE": release]) { $1 })
            // A clean export's whole time is far more than reaching the pause needs; ten of them is generous.
            #expect(child.waitUntil(timeout: versions.exportTime * 10) {
                FileManager.default.fileExists(atPath: release + ".paused")
            }, "round \(round): the decode never paused")
            try rewrite(input, with: versions.new, byRename: round % 4 >= 2)
            _ = FileManager.default.createFile(atPath: release, contents: Data())
            let r = try child.wait(timeout: versions.exportTime * 10)
            #expect(outcome(r, output: folder + "/out/x.png", versions) == .failedAsChanged,
                    "round \(round) (streamed: \(streamed), by rename: \(round % 4 >= 2))")
        }
    }

    /// The same without a pause: a streamed input is rewritten at a random moment of its export (drawn
    /// within a clean export's time), 20 times. Whatever the moment, the image fails as changed (or,
    /// caught between a `cp`'s truncation and its write, as the empty file it then was) or its
    /// output is exactly a clean export of one version; never anything else.
    @Test func anInputRewrittenAtARandomMomentIsNeverSpliced() throws {
        let dir = try TemporaryDirectory()
        let versions = try versions(streamed: true, in: dir)
        var seen: [Outcome] = []
        for round in 0..<20 {
            let folder = dir.join("round\(round)"), input = folder + "/in/x.png"
            try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
            try Data(versions.old).write(to: URL(fileURLWithPath: input))
            let child = try startKiln(["export", input, "--output", folder + "/out", "--progress", "json",
                                       "--jobs", "1", "--device", "cpu"], environment: environment)
            usleep(UInt32(Double.random(in: 0..<1) * versions.exportTime.seconds * 1_000_000))
            try rewrite(input, with: versions.new, byRename: round % 2 == 1)
            let r = try child.wait(timeout: versions.exportTime * 10)
            if let judged = outcome(r, output: folder + "/out/x.png", versions) {
                // Only a truncating rewrite (`cp`) leaves the file empty for a moment; a rename never does.
                #expect(judged != .failedAsEmpty || round % 2 == 0, "round \(round): empty, yet replaced by a rename")
                seen.append(judged)
            }
        }
        #expect(seen.count == 20, "every round judged: \(seen)")
    }
}
