import Foundation
import KilnTestSupport
import PNGCodec
import Testing

/// A name in an input folder that is not valid UTF-8 (Linux names are bytes).
/// Swift's `String` cannot hold it, so kiln cannot open it by a path: it fails
/// alone, shown escaped (`\xFF`, as `ls -b` shows it) with the reason and the
/// remedy, and the batch goes on. (Before, the name was decoded lossily, U+FFFD
/// for the byte, and failed with "No such file or directory"; a folder with
/// such a name was silently left out of a recursive scan.)
@Suite struct NonUTF8NameTests {
    /// Makes `path` (raw bytes under `root`) a copy of `source`, or a folder when `source` is nil,
    /// through the C calls: no `String` can name it.
    private func make(_ root: String, _ path: [UInt8], copying source: String?) throws {
        let full = (Array(root.utf8) + [UInt8(ascii: "/")] + path + [0]).map { CChar(bitPattern: $0) }
        guard let source else {
            #expect(mkdir(full, 0o755) == 0, "mkdir: \(String(cString: strerror(errno)))")
            return
        }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: source)))
        let fd = open(full, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        try #require(fd >= 0, "open: \(String(cString: strerror(errno)))")
        defer { close(fd) }
        #expect(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count)
    }

    /// The names in `directory` as raw bytes (what a lossy decoding would hide).
    private func rawNames(_ directory: String) -> [[UInt8]] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [[UInt8]] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != Array(".".utf8) && name != Array("..".utf8) { names.append(name) }
        }
        return names.sorted { $0.lexicographicallyPrecedes($1) }
    }

    @Test func aNameThatIsNotUTF8FailsAloneShownEscapedAndTheBatchGoesOn() throws {
        let dir = try TemporaryDirectory()
        // Foundation cannot remove what it cannot name: rm can.
        defer { _ = try? ProcessRunner.run("/bin/rm", ["-rf", dir.path]) }
        try FileManager.default.createDirectory(atPath: dir.join("d"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("d/a.png"))
        try make(dir.path, Array("d/bad".utf8) + [0xFF] + Array("name.png".utf8), copying: Paths.sampleData + "/gray8.png")
        try make(dir.path, Array("d/notes".utf8) + [0xFF] + Array(".txt".utf8), copying: Paths.sampleData + "/recipe.json")
        try make(dir.path, Array("d/sub".utf8) + [0xFE], copying: nil)
        try make(dir.path, Array("d/sub".utf8) + [0xFE] + Array("/c.png".utf8), copying: Paths.sampleData + "/palette4.png")

        let r = try kiln(["export", dir.join("d"), "--recursive", "--output", dir.join("out"), "--progress", "json"])
        #expect(r.status == 1, "\(r.stdout)\n\(r.stderr)")
        let events = Events(r.stdoutLines)
        #expect(events.files("written").map { $0[string: "input"] } == [dir.join("d/a.png")])
        let failed = events.files("failed")
        // The file and the folder, each once, shown escaped; a non-PNG name is not looked at, as always.
        #expect(Set(failed.map { $0[string: "input"] }) == [dir.join(#"d/bad\xFFname.png"#), dir.join(#"d/sub\xFE"#)],
                "\(failed)")
        #expect(failed.count == 2)
        for event in failed {
            #expect(event[string: "error"].contains("name is not valid UTF-8; kiln reads only UTF-8 names"), "\(event)")
            #expect(event[string: "error"].contains("rename it"), "\(event)")
        }
        #expect(failed.first { $0[string: "input"].hasSuffix(#"sub\xFE"#) }?[string: "error"]
                    .contains("images in it were not exported") == true)
        #expect(rawNames(dir.join("out")).filter { $0 != Array(".kiln".utf8) } == [Array("a.png".utf8)],
                "nothing written under a mangled name")
        #expect(try PNGDecoder.decode(contentsOf: dir.join("out/a.png")) == PNGDecoder.decode(contentsOf: dir.join("d/a.png")))

        // Without --recursive the folder is not scanned, so only the file is reported; the text report shows it escaped too.
        let flat = try kiln(["export", dir.join("d"), "--output", dir.join("flat"), "--progress", "none"])
        #expect(flat.status == 1)
        #expect(flat.stderr.contains(dir.join(#"d/bad\xFFname.png"#) + ": its name is not valid UTF-8"), "\(flat.stderr)")
        #expect(!flat.stderr.contains("sub\\xFE"), "\(flat.stderr)")
    }

    /// A pipe and a link to a folder whose names are not UTF-8 are said as passed over, as such files by other names
    /// are: they were left out of the `ignored` events and the counts.
    @Test func specialFilesWhoseNamesAreNotUTF8AreSaid() throws {
        let dir = try TemporaryDirectory()
        defer { _ = try? ProcessRunner.run("/bin/rm", ["-rf", dir.path]) }
        try FileManager.default.createDirectory(atPath: dir.join("d/folder"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("d/a.png"))
        func raw(_ bytes: [UInt8]) -> [CChar] { (Array(dir.path.utf8) + Array("/d/".utf8) + bytes + [0]).map { CChar(bitPattern: $0) } }
        #expect(mkfifo(raw(Array("pipe".utf8) + [0xFF] + Array(".png".utf8)), 0o644) == 0)
        #expect(symlink("folder", raw(Array("loop".utf8) + [0xFF])) == 0)
        let r = try kiln(["export", dir.join("d"), "-o", dir.join("out"), "--recursive", "--progress", "json"])
        #expect(r.status == 0, "\(r.stdout)")
        let ignored = Events(r.stdoutLines).named("ignored").map { [$0[string: "path"], $0[string: "reason"]] }
        #expect(ignored.contains([dir.join(#"d/pipe\xFF.png"#), "not a regular file: a named pipe (FIFO)"]), "\(ignored)")
        #expect(ignored.contains([dir.join(#"d/loop\xFF"#), "a symbolic link to a folder, which --recursive does not follow (links can loop)"]),
                "\(ignored)")
        #expect(Events(r.stdoutLines).named("start").first?["ignoredOther"] as? Int == 2, "\(r.stdout)")
    }

    /// Before: a valid UTF-8 name holding control characters was printed as it is in the text report: a newline
    /// forged a line of kiln's own ("kiln: 9 written, …"), an ESC sent the terminal its sequences. Shown `\xHH`.
    @Test func controlCharactersInANameAreShownEscaped() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        let damaged = Data(try Data(contentsOf: URL(fileURLWithPath: Paths.sampleData + "/rgb8.png")).prefix(100))
        let forged = "evil\nkiln: 9 written, 0 skipped, 0 failed of 9 in 0:00.png", colored = "esc\u{1B}[31mred\u{9B}0m.png"
        for name in [forged, colored] { try damaged.write(to: URL(fileURLWithPath: dir.join("in/" + name))) }
        let r = try kiln(["export", dir.join("in"), "-o", dir.join("out"), "--progress", "plain"])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("evil\\x0Akiln: 9 written"), "\(r.stderr)")
        #expect(r.stderr.contains("esc\\x1B[31mred\\xC2\\x9B0m.png"), "\(r.stderr)")
        #expect(!r.stderr.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{9B}" }, "no control character reaches the terminal")
        #expect(!r.stderr.split(separator: "\n").contains { $0.hasPrefix("kiln: 9 written") }, "no forged line")

        // The image in hand, named in a progress line: held open, before its decoding, until the line is seen (the
        // line names an image at work; one held after its end, done, is no longer named).
        try FileManager.default.createDirectory(atPath: dir.join("good"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("good/z.png"))
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/gray8.png", toPath: dir.join("good/" + colored))
        let child = try startKiln(["export", dir.join("good"), "-o", dir.join("made"), "--device", "cpu", "--progress", "plain",
                                   "--jobs", "1", "--stall-timeout", "600"],
                                  environment: ["KILN_TEST_PAUSE_DECODE": dir.join("release")])
        let shown = child.waitUntil(timeout: .seconds(120)) { child.stderrSoFar.contains("% · ") }
        _ = FileManager.default.createFile(atPath: dir.join("release"), contents: Data())
        let plain = try child.wait()
        #expect(shown && plain.status == 0, "\(plain.stderr)")
        #expect(plain.stderr.contains("esc\\x1B[31mred\\xC2\\x9B0m.png"), "the name in hand: \(plain.stderr)")
        #expect(!plain.stderr.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{9B}" }, "no control character reaches the terminal")

        // A title in `kiln status`, and a path in a usage error: the user's text, quoted.
        let kept = try kiln(["export", dir.join("good"), "-o", dir.join("kept"), "--keep-journal", "--title", "T\u{1B}[31m\nkiln: x",
                             "--progress", "none"])
        #expect(kept.status == 0, "\(kept.stderr)")
        let status = try kiln(["status", dir.join("kept")])
        #expect(status.stdout.contains("T\\x1B[31m\\x0Akiln: x") && !status.stdout.contains("\u{1B}"), "\(status.stdout)")
        let mark = try kiln(["export", dir.join("good"), "-o", dir.join("marked"), "--watermark", dir.join("no\u{1B}[5m\nmark.png")])
        #expect(mark.status == 64 && mark.stderr.contains("no\\x1B[5m\\x0Amark.png") && !mark.stderr.contains("\u{1B}"), "\(mark.stderr)")
    }
}
