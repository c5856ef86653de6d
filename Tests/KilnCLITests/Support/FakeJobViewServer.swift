import Foundation
import KilnTestSupport

/// The test's KDE job view server (Tests/Fixtures/dbus/jobview-server.py) on a ``PrivateBus``: it owns
/// `org.kde.JobViewServer` (or `name`) and records every call on it and on its views, with the time it came.
final class FakeJobViewServer {
    private let server: ChildProcess
    private let log: String

    /// Starts the server on `bus`, in `directory`. It emits, once each: `cancelRequested` after the first
    /// `setPercent` of at least `cancelAt`; `suspendRequested` after the first of at least `suspendAt`, then
    /// `resumeRequested` once a file exists at `resumeWhen`.
    init(on bus: PrivateBus, in directory: TemporaryDirectory, name: String = "org.kde.JobViewServer",
         cancelAt: Int? = nil, suspendAt: Int? = nil, resumeWhen: String? = nil) throws {
        log = directory.join("jobview.ndjson")
        let ready = directory.join("jobview-ready")
        var arguments = [Paths.repository + "/Tests/Fixtures/dbus/jobview-server.py", "--log", log, "--ready", ready,
                         "--name", name]
        if let cancelAt { arguments += ["--cancel-at", "\(cancelAt)"] }
        if let suspendAt { arguments += ["--suspend-at", "\(suspendAt)"] }
        if let resumeWhen { arguments += ["--resume-when", resumeWhen] }
        server = try ChildProcess(PrivateBus.python, arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        guard server.waitUntil(timeout: .seconds(30), { FileManager.default.fileExists(atPath: ready) }) else {
            throw PrivateBus.BusError.notStarted("job view server: \(server.stderrSoFar)")
        }
    }

    /// Every record so far, in order: calls (`method`, `args`) and the signals the server emitted (`emitted`).
    var records: [[String: Any]] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The calls of `method`, in order.
    func calls(_ method: String) -> [[String: Any]] { records.filter { $0["method"] as? String == method } }

    deinit { server.send(SIGTERM) }
}
