import Foundation
import KilnTestSupport
import Testing

/// An in-place run killed with SIGKILL can leave its temporary file
/// (`.NAME.kiln-PID-N.tmp`) beside an input; the job's next run (`kiln resume`)
/// removes those of its own inputs — and nothing else: not a symlink, not a
/// name of another file, not a live process's file.
@Suite(.serialized) struct InPlaceTemporaryTests {
    /// Images per round: enough to be killed in the middle of.
    private var names: [String] { LargeImages.outputs(in: Self.reference.source) }
    private let operations = ["--brightness", "0.1"]

    /// The hidden temporary files of kiln in `folder`.
    private func temporaries(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            $0.hasPrefix(".") && $0.contains(".kiln-") && $0.hasSuffix(".tmp")
        }.sorted()
    }

    /// The images, and what an export into a folder writes for them (made once).
    private static let reference: (source: String, outputs: String) = {
        let dir = testScratch + "/in-place"
        try? FileManager.default.createDirectory(atPath: dir + "/source", withIntermediateDirectories: true)
        for name in LargeImages.outputs(in: LargeImages.directory).prefix(8) {
            try? FileManager.default.copyItem(atPath: LargeImages.directory + "/" + name, toPath: dir + "/source/" + name)
        }
        let r = try! kiln(["export", dir + "/source", "--output", dir + "/outputs", "--progress", "none", "--brightness", "0.1"])
        precondition(r.status == 0, "reference export failed: \(r.stderr)")
        return (dir + "/source", dir + "/outputs")
    }()

    /// `dir/in` with copies of the images.
    private func prepare(_ dir: TemporaryDirectory) throws {
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        for name in names { try FileManager.default.copyItem(atPath: Self.reference.source + "/" + name, toPath: dir.join("in/" + name)) }
    }

    @Test func resumeAfterKillNineLeavesNoTemporaryFile() throws {
        var leftBehind = 0
        // What a whole uninterrupted export of the images takes, measured: the yardstick for the waits.
        let timed = try TemporaryDirectory()
        try prepare(timed)
        let clean = try startKiln(["export", "--in-place", "in", "--progress", "none"] + operations, directory: timed.path).wait()
        #expect(clean.status == 0 && temporaries(in: timed.join("in")) == [], "a clean run leaves none")
        let exportTime = max(clean.elapsed.seconds, 1)
        for round in 0..<10 {
            let dir = try TemporaryDirectory()
            try prepare(dir)
            let child = try startKiln(["export", "--in-place", "in", "--progress", "json", "--jobs", "2"] + operations,
                                      directory: dir.path)
            // Killed after 1 to 5 written images: in the middle of the next images' writes.
            let written = 1 + round % 5
            #expect(child.waitUntil(timeout: .seconds(exportTime * 20)) {
                child.stdoutSoFar.components(separatedBy: "\"status\":\"written\"").count > written
            }, "round \(round): \(written) images written")
            child.send(SIGKILL)
            #expect(try child.wait(timeout: .seconds(60)).signal == SIGKILL, "round \(round): killed, not finished")
            leftBehind += temporaries(in: dir.join("in")).count
            // The kill lands where it lands; one temporary file as a kill mid-write leaves it, of the dead process,
            // makes sure each round has one to clean.
            let planted = ".\(names[round % names.count]).kiln-\(child.pid)-\(1000 + round).tmp"
            _ = FileManager.default.createFile(atPath: dir.join("in/" + planted), contents: Data("half an image".utf8))

            let resumed = try startKiln(["resume", ".", "--progress", "json"], directory: dir.path).wait()
            #expect(resumed.status == 0, "round \(round): \(resumed.stdout)\(resumed.stderr)")
            #expect(temporaries(in: dir.join("in")) == [], "round \(round)")
            let wrong = names.filter {
                !FileManager.default.contentsEqual(atPath: dir.join("in/" + $0), andPath: Self.reference.outputs + "/" + $0)
            }
            #expect(wrong == [], "round \(round): every input replaced exactly once")
        }
        print("InPlaceTemporaryTests: the kills themselves left \(leftBehind) temporary files")
    }

    @Test func onlyTheJobsOwnTemporariesOfDeadProcessesAreRemoved() throws {
        let dir = try TemporaryDirectory()
        try prepare(dir)
        // A process that no longer runs (waited for as the runner goes), for the leftovers' names.
        let deadPID = try ChildProcess("/bin/true", []).pid
        let item = names[0]
        let removed = [".\(item).kiln-\(deadPID)-1.tmp", ".\(names[1]).kiln-\(deadPID)-22.tmp"]
        let outside = dir.join("outside")
        _ = FileManager.default.createFile(atPath: outside, contents: Data("not kiln's".utf8))
        let kept = [
            ".\(item).kiln-\(getpid())-1.tmp",  // a running process's
            ".other.png.kiln-\(deadPID)-1.tmp",  // not an input of the job
            ".\(item).kiln-\(deadPID)-x.tmp",  // not the pattern
            ".\(item).kiln-\(deadPID).tmp",
            "\(item).kiln-\(deadPID)-1.tmp",
        ]
        let link = ".\(names[2]).kiln-\(deadPID)-3.tmp"  // a symlink: never followed, never removed
        for name in removed + kept { _ = FileManager.default.createFile(atPath: dir.join("in/" + name), contents: Data()) }
        try FileManager.default.createSymbolicLink(atPath: dir.join("in/" + link), withDestinationPath: outside)

        let r = try startKiln(["export", "--in-place", "in", "--progress", "json"] + operations, directory: dir.path).wait()
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let left = Set((try FileManager.default.contentsOfDirectory(atPath: dir.join("in")))).subtracting(names)
        #expect(left == Set(kept + [link]))
        #expect(FileManager.default.contents(atPath: outside) == Data("not kiln's".utf8))
    }
}
