import Foundation

/// One JSON object per line, keys in the order given (`"event"` first), so the
/// stream reads well for people too. Values are strings, numbers, booleans or null.
struct JSONLine {
    /// A JSON value of the kinds the event stream uses.
    enum Value {
        case string(String)
        case int(Int)
        case double(Double)
        case bool(Bool)
        case strings([String])
        case null
    }

    private var text: String

    /// A line for the event named `event`.
    init(event: String) {
        text = "{\"event\":" + Self.quoted(event)
    }

    /// Appends `"key":value`.
    mutating func add(_ key: String, _ value: Value) {
        text += "," + Self.quoted(key) + ":"
        switch value {
        case .string(let s): text += Self.quoted(s)
        case .int(let i): text += String(i)
        case .double(let d): text += d.isFinite ? String(d) : "null"
        case .bool(let b): text += b ? "true" : "false"
        case .strings(let list): text += "[" + list.map(Self.quoted).joined(separator: ",") + "]"
        case .null: text += "null"
        }
    }

    /// The finished line, without a newline.
    var rendered: String { text + "}" }

    /// A JSON string literal, escaped by Foundation's encoder (a few lines a second: no need for speed).
    private static func quoted(_ s: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return (try? encoder.encode(s)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }
}
