import CDBus
import Glibc

/// A private connection to the session bus, through libdbus opened at run time
/// (CDBus); closed when dropped. Used from one thread at a time.
/// Every call to a server waits at most ``replyTimeoutMs`` for its reply; a question to the bus itself, ``busReplyTimeoutMs``.
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

    /// Whether the notification server lists `capability` among its capabilities ("body-markup").
    func notificationsCapability(_ capability: String) throws(Failure) -> Bool {
        var found: Int32 = 0
        let message = Self.withErrorBuffer {
            found = kiln_dbus_notifications_capability(connection, capability, Self.replyTimeoutMs, $0, $1)
        }
        guard found >= 0 else { throw Failure(description: message) }
        return found == 1
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

    /// Whether `name` has an owner on the bus now.
    func nameHasOwner(_ name: String) throws(Failure) -> Bool {
        var owned: Int32 = 0
        let message = Self.withErrorBuffer { owned = kiln_dbus_name_has_owner(connection, name, Self.busReplyTimeoutMs, $0, $1) }
        guard owned >= 0 else { throw Failure(description: message) }
        return owned == 1
    }

    /// Asks the bus for the signals a match rule selects (``nextSignal(of:from:waiting:)`` reads them).
    func addMatch(_ rule: String) throws(Failure) {
        var status: Int32 = 0
        let message = Self.withErrorBuffer { status = kiln_dbus_add_match(connection, rule, $0, $1) }
        guard status == 0 else { throw Failure(description: message) }
    }

    /// One argument of a method call, typed as D-Bus types it.
    enum Argument {
        case string(String)
        case bool(Bool)
        case int32(Int32)
        case uint32(UInt32)
        case uint64(UInt64)
    }

    /// Calls `method` of `interface` on the object `path` of `destination` and waits for its reply (`toTheBus`:
    /// a question to the bus itself, ``busReplyTimeoutMs``); returns the reply's first argument when it is an object
    /// path or a string (`returnsPath`), else nil.
    @discardableResult
    func call(_ destination: String, path: String, interface: String, method: String, _ arguments: [Argument],
              returnsPath: Bool = false, toTheBus: Bool = false) throws(Failure) -> String? {
        // The strings live until the call returns: libdbus copies them into the message.
        let strings = arguments.map { argument -> UnsafeMutablePointer<CChar>? in
            if case .string(let value) = argument { strdup(value) } else { nil }
        }
        defer { strings.forEach { free($0) } }
        let args = zip(arguments, strings).map { argument, string -> kiln_dbus_arg in
            switch argument {
            case .string: kiln_dbus_arg(type: CChar(UInt8(ascii: "s")), string: string, number: 0)
            case .bool(let value): kiln_dbus_arg(type: CChar(UInt8(ascii: "b")), string: nil, number: value ? 1 : 0)
            case .int32(let value): kiln_dbus_arg(type: CChar(UInt8(ascii: "i")), string: nil, number: UInt64(UInt32(bitPattern: value)))
            case .uint32(let value): kiln_dbus_arg(type: CChar(UInt8(ascii: "u")), string: nil, number: UInt64(value))
            case .uint64(let value): kiln_dbus_arg(type: CChar(UInt8(ascii: "t")), string: nil, number: value)
            }
        }
        var reply = [CChar](repeating: 0, count: returnsPath ? 512 : 1)
        var status: Int32 = 0
        let message = Self.withErrorBuffer { error, capacity in
            reply.withUnsafeMutableBufferPointer { buffer in
                status = kiln_dbus_call(connection, destination, path, interface, method, args, args.count,
                                        toTheBus ? Self.busReplyTimeoutMs : Self.replyTimeoutMs,
                                        returnsPath ? buffer.baseAddress : nil, buffer.count, error, capacity)
            }
        }
        guard status == 0 else { throw Failure(description: "\(interface).\(method): \(message)") }
        return returnsPath ? reply.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } : nil
    }

    /// The session bus's id and the unique name of the notification server on it, or nil when either is not told:
    /// what a notification's id means (``ShownNotification``).
    func notificationServer() -> (bus: String, server: String)? {
        let daemon = (name: "org.freedesktop.DBus", path: "/org/freedesktop/DBus")
        guard let bus = try? call(daemon.name, path: daemon.path, interface: daemon.name, method: "GetId", [], returnsPath: true,
                                  toTheBus: true),
              let server = try? call(daemon.name, path: daemon.path, interface: daemon.name, method: "GetNameOwner",
                                     [.string("org.freedesktop.Notifications")], returnsPath: true, toTheBus: true),
              !bus.isEmpty, !server.isEmpty else { return nil }
        return (bus, server)
    }

    /// The name of the next signal of `interface` that the object `path` sent, waiting up to `milliseconds`
    /// for one; nil when none came. Other messages are dropped.
    func nextSignal(of interface: String, from path: String, waiting milliseconds: Int32) throws(Failure) -> String? {
        var member = [CChar](repeating: 0, count: 128)
        let status = member.withUnsafeMutableBufferPointer {
            kiln_dbus_next_signal(connection, milliseconds, interface, path, $0.baseAddress, $0.count)
        }
        if status < 0 { throw Failure(description: "the session bus connection closed") }
        guard status == 1 else { return nil }
        return member.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// How long a call may wait for its reply: a server that takes longer is treated as gone. libdbus's own
    /// default: a server D-Bus starts at the first notification (dunst, mako, notification-daemon), or a busy
    /// desktop shell, takes seconds to answer. (Rejected: 2 s, which gave up on a server answering in 2.5 s: it
    /// went on to show the first notification, which was then never replaced nor closed, a Cancel that did
    /// nothing at 0 % for good.) The calls are made on the presenter's own thread: a wait holds no image back.
    private static let replyTimeoutMs: Int32 = 25_000
    /// How long the bus itself (`NameHasOwner`, asked before the job starts, on its thread) may take: it
    /// answers at once, and a bus that does not is treated as gone without holding the job's start back.
    private static let busReplyTimeoutMs: Int32 = 2000

    private static func withErrorBuffer(_ body: (UnsafeMutablePointer<CChar>?, Int) -> Void) -> String {
        var message = [CChar](repeating: 0, count: 512)
        message.withUnsafeMutableBufferPointer { body($0.baseAddress, $0.count) }
        return message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
