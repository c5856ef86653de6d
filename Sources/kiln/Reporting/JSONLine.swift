/// One JSON object per line, keys in the order given (`"event"` first), so the
/// stream reads well for people too. Values are strings, numbers, booleans or null.
struct JSONLine {
    /// A JSON value of the kinds the event stream uses.
    enum Value {
        case string(String)
        case int(Int)
        case double(Double)
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
        case .null: text += "null"
        }
    }

    /// The finished line, without a newline.
    var rendered: String { text + "}" }

    private static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
