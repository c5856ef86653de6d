import CDBus

/// A private connection to the session bus, through libdbus opened at run time
/// (CDBus); closed when dropped. Used from one thread at a time.
struct DBusSession: ~Copyable {
    /// Why the bus or the notification server could not be used, in libdbus's words.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let connection: UnsafeMutableRawPointer

    /// Connects to the session bus (`DBUS_SESSION_BUS_ADDRESS`, else the user's bus socket)
    /// and listens for notification actions. libdbus is `KILN_DBUS_LIBRARY` in `environment`,
    /// else the system's `libdbus-1.so.3`.
    init(environment: [String: String]) throws(Failure) {
        let library = environment["KILN_DBUS_LIBRARY"].flatMap { $0.isEmpty ? nil : $0 } ?? "libdbus-1.so.3"
        var connection: UnsafeMutableRawPointer?
        let message = Self.withErrorBuffer { connection = kiln_dbus_connect(library, $0, $1) }
        guard let connection else { throw Failure(description: message) }
        self.connection = connection
    }

    deinit { kiln_dbus_close(connection) }

    /// Shows (or, with `replacing` not 0, replaces) a notification from kiln; returns its id.
    /// `value`: the progress hint, 0–100; `cancelAction`: offer a Cancel action.
    /// `expireTimeout`: milliseconds, 0 for never, -1 for the server's default.
    func notify(replacing id: UInt32, summary: String, body: String, value: Int32?, cancelAction: Bool,
                expireTimeout: Int32) throws(Failure) -> UInt32 {
        var newID: UInt32 = 0
        var status: Int32 = 0
        let message = Self.withErrorBuffer {
            status = kiln_dbus_notify(connection, id, "kiln", summary, body, value ?? -1, cancelAction ? 1 : 0,
                                      expireTimeout, Self.replyTimeoutMs, &newID, $0, $1)
        }
        guard status == 0 else { throw Failure(description: message) }
        return newID
    }

    /// The next action a person invoked on a notification (any application's: the caller checks the id),
    /// waiting up to `milliseconds` for one; nil when none came.
    func nextAction(waiting milliseconds: Int32) throws(Failure) -> (id: UInt32, key: String)? {
        var id: UInt32 = 0
        var key = [CChar](repeating: 0, count: 128)
        let status = key.withUnsafeMutableBufferPointer {
            kiln_dbus_next_action(connection, milliseconds, &id, $0.baseAddress, $0.count)
        }
        if status < 0 { throw Failure(description: "the session bus connection closed") }
        guard status == 1 else { return nil }
        return (id, key.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }

    /// How long a notification call may wait for its reply: a server that takes longer is treated as gone.
    private static let replyTimeoutMs: Int32 = 2000

    private static func withErrorBuffer(_ body: (UnsafeMutablePointer<CChar>?, Int) -> Void) -> String {
        var message = [CChar](repeating: 0, count: 512)
        message.withUnsafeMutableBufferPointer { body($0.baseAddress, $0.count) }
        return message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
