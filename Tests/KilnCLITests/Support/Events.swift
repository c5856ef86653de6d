import Foundation
import Testing

/// The JSON event stream of one run, parsed line by line.
struct Events {
    /// Every line as a JSON object, in order.
    let all: [[String: Any]]

    /// Parses `lines`; a line that is not a JSON object with an `event` string fails the test.
    init(_ lines: [String]) {
        all = lines.compactMap { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["event"] is String, "not an event line: \(line)")
            return object
        }
    }

    /// Events named `name`.
    func named(_ name: String) -> [[String: Any]] { all.filter { $0["event"] as? String == name } }

    /// The `file` events by status.
    func files(_ status: String) -> [[String: Any]] { named("file").filter { $0["status"] as? String == status } }

    /// Checks that the run stopped as Ctrl-C stops it, cancelled by a view of the job (a
    /// notification's or a KDE job view's Cancel): reason `userCancelled`, every image in flight
    /// at the stop written, fewer than all of `LargeImages` written and each one in `out`.
    /// Returns how many were in flight and how many were written.
    func stoppedLikeCtrlC(out: String) -> (inFlight: Int, written: Int) {
        let stopping = named("stopping").first ?? [:]
        #expect(stopping[string: "reason"] == "userCancelled" && stopping[string: "message"] == "cancelled", "\(all)")
        let stop = all.firstIndex { $0["event"] as? String == "stopping" } ?? all.endIndex
        let inFlight = stopping["inFlight"] as? Int ?? -1
        let finishedAfter = all[stop...].filter { $0["event"] as? String == "file" }
        #expect(finishedAfter.count >= inFlight && finishedAfter.allSatisfy { $0[string: "status"] == "written" })
        let written = files("written").count
        #expect(written < LargeImages.count && LargeImages.outputs(in: out).count == written)
        return (inFlight, written)
    }
}

/// Runs `pngcheck -q` over files, returning the files it rejected (empty when all pass).
func pngcheckFailures(_ files: [String]) throws -> [String] {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/pngcheck") else {
        Issue.record("pngcheck is missing: run Scripts/setup")
        return files
    }
    var failures: [String] = []
    for chunk in stride(from: 0, to: files.count, by: 200) {
        let batch = Array(files[chunk..<min(files.count, chunk + 200)])
        let r = try ProcessRunner.run("/usr/bin/pngcheck", ["-q"] + batch)
        if r.status != 0 { failures += batch.filter { r.stdout.contains($0) || r.stderr.contains($0) } }
        if r.status != 0 && failures.isEmpty { failures = batch }
    }
    return failures
}

extension Dictionary where Key == String, Value == Any {
    /// The string value at `key`, or "" (keeps `#expect` expressions simple).
    subscript(string key: String) -> String { self[key] as? String ?? "" }
    /// The integer value at `key`, or -1 (keeps `#expect` expressions simple).
    subscript(int key: String) -> Int { self[key] as? Int ?? -1 }
}
