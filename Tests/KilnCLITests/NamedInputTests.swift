import Foundation
import KilnTestSupport
import PNGCodec
import Testing

/// SPEC §5: a path named on the command line that is missing or unreadable is a
/// usage error (exit 64) and nothing is created; inside folders and `-` lists a
/// missing path stays a failure of its own item (InputHandlingTests).
/// (Issue 24: `kiln export nope.png -o new` exited 1 and created `new/`.)
@Suite struct NamedInputTests {
    @Test func missingNamedFileIsAUsageErrorAndCreatesNothing() throws {
        let dir = try TemporaryDirectory()
        let r = try kiln(["export", dir.join("nope.png"), Paths.sampleData + "/rgb8.png",
                          "--output", dir.join("new"), "--progress", "json"])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.join("new")), "nothing created")
        let events = Events(r.stdoutLines)
        let message = events.named("error").first?[string: "message"] ?? ""
        #expect(message.contains(dir.join("nope.png")) && message.contains("No such file"), "\(message)")
        #expect(events.named("file").isEmpty)
        #expect(events.all.last?["exitCode"] as? Int == 64)
    }

    /// Every named input that cannot be read is named at once (a glob's expansion with files gone took a run for
    /// each), and a socket is said to be one (its open said only "No such device or address").
    @Test func everyUnreadableNamedInputIsNamedAtOnce() throws {
        let dir = try TemporaryDirectory()
        let socketPath = dir.join("s.png")
        try #require(socketPath.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path), "a socket's path fits sun_path")
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            socketPath.utf8CString.withUnsafeBytes { raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(raw.count))) }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0, "bind: \(String(cString: strerror(errno)))")
        let r = try startKiln(["export", Paths.sampleData + "/rgb8.png", "gone1.png", "s.png", "gone2.png", "-o", "out"],
                              directory: dir.path).wait()
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("cannot read the input gone1.png: No such file or directory; nor s.png: it is a socket, "
                                  + "not an image file or a folder; gone2.png: No such file or directory; nothing was exported"),
                "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.join("out")), "nothing created")
    }

    @Test func missingNamedFileInPlaceCreatesNoJournal() throws {
        let dir = try TemporaryDirectory()
        let r = try startKiln(["export", "--in-place", "nope.png", "--progress", "none"], directory: dir.path).wait()
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("cannot read the input nope.png"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "no .kiln left behind")
    }

    @Test func pathThroughAFileIsAUsageError() throws {
        let dir = try TemporaryDirectory()
        let r = try kiln(["export", Paths.sampleData + "/rgb8.png/x.png", "--output", dir.join("out"),
                          "--progress", "none"])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("Not a directory"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.join("out")))
    }

    /// A file named twice (overlapping globs, a folder and itself as `./in`) is exported once, with one warning.
    /// Before, every repeat failed, naming itself as the other input of its output, and the job exited 1 with
    /// every output written; in place, a file named by two paths (in/a.png, ./in/a.png) made the job exit 1 too.
    @Test func aFileNamedTwiceIsExportedOnce() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        for name in ["a.png", "b.png"] {
            try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("in/" + name))
        }
        // (`in/a.png in` is no repeat: the folder's a.png is written as a.png, the named one as in/a.png.)
        // `in/../in/a.png` does not climb out of the folder kiln runs in: it mirrors in/a.png (it kept only a.png, an
        // output of its own: the file exported twice).
        for (arguments, written) in [(["in/a.png", "in/a.png"], 1), (["in", "./in"], 2), (["in/a.png", "in/../in/a.png"], 1)] {
            let r = try startKiln(["export"] + arguments + ["-o", "out-\(arguments.count)-\(written)-\(arguments[1].count)",
                                   "--progress", "json"], directory: dir.path).wait()
            #expect(r.status == 0, "\(arguments): \(r.stdout)")
            let events = Events(r.stdoutLines)
            #expect(events.files("failed").isEmpty, "\(arguments): \(r.stdout)")
            #expect(events.files("written").count == written, "\(arguments): \(r.stdout)")
            let warnings = events.named("warning").compactMap { $0["message"] as? String }
            #expect(warnings.filter { $0.contains("each file is exported once") }.count == 1, "\(arguments): \(warnings)")
        }
        // In place: two names of one file, brightened once.
        let before = try PNGDecoder.decode(contentsOf: dir.join("in/a.png"))
        let once = try startKiln(["export", "--in-place", "in/a.png", "./in/a.png", "--brightness", "0.2", "--progress", "json"],
                                 directory: dir.path).wait()
        #expect(once.status == 0, "\(once.stdout)")
        #expect(Events(once.stdoutLines).files("written").count == 1, "\(once.stdout)")
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("reference.png"))
        let reference = try startKiln(["export", "--in-place", dir.join("reference.png"), "--brightness", "0.2", "--progress", "none"],
                                      directory: dir.path).wait()
        #expect(reference.status == 0, "\(reference.stderr)")
        let after = try PNGDecoder.decode(contentsOf: dir.join("in/a.png"))
        #expect(after != before)
        #expect(after == (try PNGDecoder.decode(contentsOf: dir.join("reference.png"))), "brightened more than once")
        // In place, a second hard link is no repeat: the first name's file is replaced (a rename over it), so the
        // second still names the old pixels, and its own item replaces them too. One image at a time: two at
        // once, the rename changes the second's inode (its link count, so its ctime) while it is read, and it
        // fails as changed: a known limit of two hard links of one file exported in place at once.
        try FileManager.default.createDirectory(atPath: dir.join("linked"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("linked/a.png"))
        try FileManager.default.linkItem(atPath: dir.join("linked/a.png"), toPath: dir.join("linked/b.png"))
        let linked = try startKiln(["export", "--in-place", dir.join("linked"), "--resize", "10x10", "--jobs", "1",
                                    "--progress", "json"], directory: dir.path).wait()
        #expect(linked.status == 0, "\(linked.stdout)")
        for name in ["a.png", "b.png"] {
            #expect(try PNGDecoder.decode(contentsOf: dir.join("linked/" + name)).width == 10, "\(name) not resized")
        }
        // A symbolic link named beside its target, in either order, is a repeat: the target is processed once
        // and the link stays a link to it. Before, named after its target, the link was read once the target was
        // replaced, processed a second time and replaced by a regular file; named before it, the target was left out.
        for (order, names) in [("after", ["a.png", "s.png"]), ("before", ["s.png", "a.png"])] {
            let folder = dir.join("symbolic-" + order)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: folder + "/a.png")
            try FileManager.default.createSymbolicLink(atPath: folder + "/s.png", withDestinationPath: "a.png")
            let symbolic = try startKiln(["export", "--in-place"] + names.map { folder + "/" + $0 }
                                         + ["--brightness", "0.2", "--jobs", "1", "--progress", "json"], directory: dir.path).wait()
            #expect(symbolic.status == 0, "\(order): \(symbolic.stdout)")
            let events = Events(symbolic.stdoutLines)
            #expect(events.files("written").count == 1, "\(order): \(symbolic.stdout)")
            #expect(events.named("warning").contains { $0[string: "message"].contains("each file is exported once") },
                    "\(order): \(symbolic.stdout)")
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/s.png")) == "a.png",
                    "\(order): the link is still a link")
            #expect(try PNGDecoder.decode(contentsOf: folder + "/a.png") == (try PNGDecoder.decode(contentsOf: dir.join("reference.png"))),
                    "\(order): brightened once")
        }
        // Names that differ only in Unicode normalisation are two files to Linux, one key to Swift's strings: the
        // second fails alone, saying so. Before, in place, it was left out as a repeat, unprocessed, exit 0.
        let nfc = "caf\u{E9}.png", nfd = "cafe\u{301}.png"
        try FileManager.default.createDirectory(atPath: dir.join("unicode"), withIntermediateDirectories: true)
        for name in [nfc, nfd] {
            try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("unicode/" + name))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.join("unicode")).count == 2)
        for inPlace in [true, false] {
            // From the test's folder: in place, the journal is ./.kiln, and kept after a failure.
            let r = try startKiln(["export", "unicode"] + (inPlace ? ["--in-place"] : ["-o", "unicode-out"])
                                  + ["--brightness", "0.2", "--progress", "json"], directory: dir.path).wait()
            #expect(r.status == 1, "in place \(inPlace): \(r.stdout)")
            let failed = Events(r.stdoutLines).files("failed")
            #expect(failed.count == 1 && failed[0][string: "error"].contains("differ only in how Unicode composes"),
                    "in place \(inPlace): \(r.stdout)")
        }
    }

    /// A file named as `.kiln/a.png` keeps that relative path under the output folder: before, it was written into
    /// the journal's folder, reported written (exit 0) and removed with the journal. Now it fails alone, saying why.
    @Test func anOutputInTheJournalFolderFailsAlone() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join(".kiln"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join(".kiln/a.png"))
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join("b.png"))
        let r = try startKiln(["export", ".kiln/a.png", "b.png", "-o", "out", "--progress", "json"], directory: dir.path).wait()
        #expect(r.status == 1, "\(r.stdout)")
        let events = Events(r.stdoutLines)
        #expect(events.files("failed").first?[string: "error"].contains("inside the output folder's journal") == true, "\(r.stdout)")
        #expect(events.files("written").count == 1)
        #expect(!FileManager.default.fileExists(atPath: dir.join("out/.kiln/a.png")))
        #expect(FileManager.default.fileExists(atPath: dir.join("out/b.png")))
    }

    /// A name may hold a newline (`-0`, or the command line): the export took it, and its resume refused the journal
    /// it had written ("items[0].input must be a path without control characters"). Now it resumes.
    @Test func aNameWithANewlineIsResumed() throws {
        let dir = try TemporaryDirectory()
        let name = "two\nlines.png"
        try FileManager.default.copyItem(atPath: Paths.sampleData + "/rgb8.png", toPath: dir.join(name))
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: URL(fileURLWithPath: dir.join("bad.png")))
        let first = try kiln(["export", dir.join(name), dir.join("bad.png"), "-o", dir.join("out"), "--progress", "none"])
        #expect(first.status == 1, "\(first.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.join("out/" + name)))
        let resumed = try kiln(["resume", dir.join("out"), "--progress", "json"])
        #expect(resumed.status == 1, "\(resumed.stderr)")
        #expect(!resumed.stderr.contains("control characters"), "\(resumed.stderr)")
        #expect(Events(resumed.stdoutLines).files("failed").count == 1, "bad.png tried again: \(resumed.stdout)")
    }
}
