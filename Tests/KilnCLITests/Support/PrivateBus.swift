import Foundation
import KilnTestSupport

/// A private session bus (`dbus-daemon --session` on a socket of its own, run by
/// the test) with the test notification server on it
/// (Tests/Fixtures/dbus/notification-server.py), which records every Notify call.
final class PrivateBus {
    /// Why these tests cannot run here (nil when they can): Scripts/setup installs what they need.
    static let unavailable: String? = {
        guard FileManager.default.isExecutableFile(atPath: daemonPath) else { return "dbus-daemon is missing" }
        let probe = try? ProcessRunner.run(python, ["-c", "import dbus, dbus.mainloop.glib; from gi.repository import GLib"])
        return probe?.status == 0 ? nil : "\(python) lacks python3-dbus or python3-gi"
    }()

    /// The address kiln is given as `DBUS_SESSION_BUS_ADDRESS`.
    let address: String
    private let daemon: ChildProcess
    private let server: ChildProcess
    private let log: String

    /// Starts the bus and the server in `directory`; with `cancelAt`, the server invokes the
    /// Cancel action once, on the first notification whose value is at least that percent; with
    /// `markup`, it reads markup in the body (it lists `body-markup`); with `firstReplyDelay`, it answers
    /// the first Notify that many seconds after it came.
    init(in directory: TemporaryDirectory, cancelAt: Int? = nil, markup: Bool = false, firstReplyDelay: Double? = nil) throws {
        let socket = directory.join("bus")
        address = "unix:path=" + socket
        log = directory.join("notifications.ndjson")
        daemon = try ChildProcess(Self.daemonPath, ["--session", "--nofork", "--address=" + address])
        guard daemon.waitUntil(timeout: .seconds(30), { FileManager.default.fileExists(atPath: socket) }) else {
            throw BusError.notStarted("dbus-daemon: \(daemon.stderrSoFar)")
        }
        let ready = directory.join("server-ready")
        server = try ChildProcess(Self.python, [Paths.repository + "/Tests/Fixtures/dbus/notification-server.py",
                                                "--log", log, "--ready", ready] + (cancelAt.map { ["--cancel-at", "\($0)"] } ?? [])
                                                + (markup ? ["--markup"] : [])
                                                + (firstReplyDelay.map { ["--first-reply-delay", "\($0)"] } ?? []),
                                  environment: ["DBUS_SESSION_BUS_ADDRESS": address])
        guard server.waitUntil(timeout: .seconds(30), { FileManager.default.fileExists(atPath: ready) }) else {
            throw BusError.notStarted("notification server: \(server.stderrSoFar)")
        }
    }

    /// Every Notify call so far, in order (and the server's own Cancel, as `{"invoked": "cancel"}`).
    var records: [[String: Any]] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The Notify calls so far.
    var notifications: [[String: Any]] { records.filter { $0["invoked"] == nil } }

    /// Kills the bus (and so every connection to it), as a crashed session would.
    func killBus() {
        daemon.send(SIGKILL)
        _ = try? daemon.wait(timeout: .seconds(10))
    }

    /// Stops the notification server (SIGSTOP): it stays on the bus and answers nothing, as a hung one.
    func freezeServer() {
        server.send(SIGSTOP)
    }


    deinit {
        server.send(SIGCONT)
        server.send(SIGTERM)
        daemon.send(SIGTERM)
    }

    private static let daemonPath = "/usr/bin/dbus-daemon"
    /// Debian's Python, where python3-dbus and python3-gi are installed (not a pyenv or venv one).
    static let python = "/usr/bin/python3"

    enum BusError: Error {
        case notStarted(String)
    }
}
