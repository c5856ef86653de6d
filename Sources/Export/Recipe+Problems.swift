import Foundation
import ImageCore
import Render

/// How a recipe's problems are named: by the path of the value at fault, in the words of its author.
extension Recipe {
    /// "operations[1].sigma: missing", "operations[0].width: wrong type, expected a whole number",
    /// "operations[0].axis: \"x\" is not one of h, v", "operations[0].width: must be a whole number,
    /// not 100.5" … (also how the job journal's stored plan reports a bad value). `data`: the JSON decoded,
    /// to say where its syntax breaks or which number the decoder could not take.
    package static func describe(_ error: DecodingError, in data: Data? = nil) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "\(place(context.codingPath + [key])): missing"
        case .typeMismatch(let type, let context):
            return "\(place(context.codingPath)): wrong type, expected \(kind(of: type))"
        case .valueNotFound(let type, let context):
            return "\(place(context.codingPath)): missing value, expected \(kind(of: type))"
        case .dataCorrupted(let context):
            // A string no case of an enumeration has: `Cannot initialize Axis from invalid String value x`.
            if let match = context.debugDescription.firstMatch(of: /^Cannot initialize (\w+) from invalid String value (.*)$/) {
                let values = enumerations[String(match.1)].map { "one of " + $0.joined(separator: ", ") } ?? "one of its values"
                let shown = match.2.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                return "\(place(context.codingPath)): \"\(shown)\" is not \(values)"
            }
            guard context.codingPath.isEmpty, context.debugDescription.contains("not valid JSON"), let data else {
                let reason = (context.underlyingError as NSError?).map { "not valid JSON (\($0.localizedDescription))" }
                return "\(place(context.codingPath)): \(reason ?? context.debugDescription)"
            }
            // The decoder says only "not valid JSON": the parser says where, or it is a number the value cannot hold.
            do {
                _ = try JSONSerialization.jsonObject(with: data)
            } catch {
                // A number no Double holds (1e400) is named where it stands, as written; before, "not valid JSON
                // (Number 1e400 is not representable …)" named no place.
                let scan = JSONScan(utf8(data))
                // A number too large for a Double, not a word that is no number (`100px` is the parser's to say).
                if let (path, range) = scan.numbers.first(where: {
                    Double(String(decoding: scan.bytes[$0.range], as: UTF8.self)).map { !$0.isFinite } ?? false
                }) {
                    return "\(path): \(String(decoding: scan.bytes[range], as: UTF8.self)) is out of range"
                }
                let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
                return "not valid JSON" + (detail.map { " (\($0))" } ?? "")
            }
            guard let (path, literal) = unfitNumber(in: data) else {
                return "a number does not fit its value (a fraction where a whole number is needed, or out of range)"
            }
            // Out of range: too large, too small for a Double (`1e-400`: a digit that is not 0 read as 0), or whole (a
            // fraction a Double cannot tell from a whole number, 100.000000000000001, the decoder takes as one).
            let value = Double(literal) ?? .infinity
            let mantissa = literal.prefix { $0 != "e" && $0 != "E" }
            let underflow = value == 0 && mantissa.contains { "123456789".contains($0) }
            return !value.isFinite || underflow || value.rounded() == value ? "\(path): \(literal) is out of range"
                : "\(path): must be a whole number, not \(literal)"
        @unknown default:
            return "\(error)"
        }
    }

    /// What valid JSON, as Foundation reads it, may say but a recipe must not, the first in the text: a key given twice
    /// in one object (JSON leaves which one counts undefined, and Foundation keeps one silently: `"width":100,
    /// "width":200` must not be read as either), a comma before a closing bracket (JSON has none; Foundation takes it),
    /// and `null` (the decoder takes it as an omitted key: `{"operations": null}` ran no operations without a word,
    /// and `"fit": null` took the default, where `"sigma": null` was refused). Said before what the decoder says of
    /// the same recipe: `{"op":"grayscale","op":"blur","sigma":1}` is a key given twice, not an unknown `sigma`. Nil
    /// when there is none, and for data that is not JSON at all (the decoder's error says where).
    package static func looseness(in data: Data) -> String? {
        guard (try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)) != nil else { return nil }
        return JSONScan(utf8(data)).problem
    }

    /// `data` (JSON the decoder read) as UTF-8 without a byte-order mark: the decoder also takes UTF-16 and UTF-32,
    /// and a leading mark (Windows Notepad writes one), which the scanner would read as a word and stop at.
    static func utf8(_ data: Data) -> Data {
        let bytes = [UInt8](data.prefix(4))
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return data.dropFirst(3) }
        guard bytes.count == 4 else { return data }  // "{}": no room for another encoding's marks
        let encoding: String.Encoding? = switch bytes {
        case [0, 0, 0xFE, 0xFF], [0xFF, 0xFE, 0, 0]: .utf32
        case let b where b[0] == 0 && b[1] == 0 && b[2] == 0: .utf32BigEndian
        case let b where b[1] == 0 && b[2] == 0 && b[3] == 0: .utf32LittleEndian
        case let b where b.starts(with: [0xFE, 0xFF]) || b.starts(with: [0xFF, 0xFE]): .utf16
        case let b where b[0] == 0: .utf16BigEndian
        case let b where b[1] == 0: .utf16LittleEndian
        default: nil
        }
        guard let encoding, let text = String(data: data, encoding: encoding) else { return data }
        return Data((text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text).utf8)
    }

    /// "operations[2].margin", "output.level", "the top level".
    private static func place(_ path: [any CodingKey]) -> String {
        let text = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return text.hasPrefix(".") ? String(text.dropFirst()) : (text.isEmpty ? "the top level" : text)
    }

    /// The values of each enumeration a recipe holds, by the name the decoder's message gives its type.
    private static let enumerations: [String: [String]] = Dictionary(uniqueKeysWithValues: [
        values(of: Flip.Axis.self), values(of: Resize.Fit.self), values(of: Resize.Filter.self),
        values(of: Watermark.Position.self), values(of: OutputFormat.self), values(of: ChromaSubsampling.self),
    ])

    private static func values<T: CaseIterable & RawRepresentable>(of type: T.Type) -> (String, [String])
        where T.RawValue == String {
        ("\(type)", type.allCases.map(\.rawValue))
    }

    /// Which number the decoder could not take, as written, when it said only "not valid JSON" of valid JSON (a
    /// fraction or an out-of-range number where a whole number is decoded, a number too small for a Double): of the
    /// numbers written with a fraction, an exponent or 16 digits or more, the first in the text that the decoder
    /// still cannot take once every other one is made 1, where it takes them all made 1 (else another value is at
    /// fault, and none is named). Read from the text, not from a parse: Foundation's parse
    /// makes `1e-400` 0 and `100.00000000000001` a decimal, which left such a number unnamed. (Rejected: decoding
    /// every whole-number field as Double to check it by hand: every operation's `init(from:)` would grow a second
    /// path, and a new field could forget it.)
    private static func unfitNumber(in data: Data) -> (path: String, literal: String)? {
        let scan = JSONScan(utf8(data))
        let suspects = scan.numbers.filter { _, range in
            let literal = scan.bytes[range]
            return literal.contains { ".eE".utf8.contains($0) } || literal.filter { (0x30...0x39).contains($0) }.count >= 16
        }
        /// Whether the decoder takes `data` with every suspect but `kept` made 1 (a 1 and spaces: the other numbers keep
        /// their places), as far as numbers go: it fails with no other error than "not valid JSON".
        func takes(keeping kept: Range<Int>?) -> Bool {
            var mended = scan.bytes
            for (_, other) in suspects where other != kept {
                mended.replaceSubrange(other, with: [UInt8(ascii: "1")] + Array(repeating: UInt8(ascii: " "), count: other.count - 1))
            }
            do {
                _ = try JSONDecoder().decode(Recipe.self, from: Data(mended))
            } catch let DecodingError.dataCorrupted(context)
                        where context.codingPath.isEmpty && context.debugDescription.contains("not valid JSON") {
                return false
            } catch {}
            return true
        }
        guard takes(keeping: nil) else { return nil }
        return suspects.first { !takes(keeping: $0.range) }.map { ($0.path, String(decoding: scan.bytes[$0.range], as: UTF8.self)) }
    }

    /// A type as a recipe's author knows it: "a number", "a list", …
    private static func kind(of type: Any.Type) -> String {
        switch type {
        case is Int.Type, is Int32.Type, is UInt32.Type: "a whole number"
        case is Double.Type, is Float.Type: "a number"
        case is String.Type: "text (a string)"
        case is Bool.Type: "true or false"
        default:
            "\(type)".hasPrefix("Array") ? "a list ([…])" : "\(type)".hasPrefix("Dictionary") ? "an object ({…})" : "\(type)"
        }
    }
}

/// One walk over valid JSON's bytes, for what a parse into dictionaries cannot see: a key given twice, a comma
/// before a closing bracket, where a `null` stands (``problem``), and where each number is written (``numbers``).
struct JSONScan {
    /// The bytes walked.
    let bytes: [UInt8]
    /// The first of the problems in the text, with its path: "operations[0].width: given twice".
    private(set) var problem: String?
    /// Each number, by the path of its value ("operations[1].width") and its bytes, in the order written.
    private(set) var numbers: [(path: String, range: Range<Int>)] = []
    private var index = 0

    /// Walks `data` (valid JSON, UTF-8).
    init(_ data: Data) {
        bytes = Array(data)
        value(at: "", member: false)
    }

    private mutating func say(_ text: String) {
        if problem == nil { problem = text }
    }

    /// Walks the value at `index`; `member`: it is an object's (else an array's, or the whole).
    private mutating func value(at path: String, member: Bool) {
        skipSpace()
        guard index < bytes.count else { return }
        let opening = bytes[index]
        switch opening {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let closing = opening == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
            index += 1
            var keys = Set<String>()
            var element = 0
            var afterComma = false
            while true {
                skipSpace()
                guard index < bytes.count else { return }
                if bytes[index] == closing {
                    if afterComma {
                        say("\(path.isEmpty ? "the top level" : path): a comma before \(Character(Unicode.Scalar(closing))) "
                            + "(JSON allows none)")
                    }
                    index += 1
                    return
                }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    element += 1
                    afterComma = true
                    continue
                }
                afterComma = false
                if opening == UInt8(ascii: "[") {
                    // On JSON that is not (a `}` where `]` belongs, read when the parser refused it, to name a
                    // number), a value that reads nothing ends the walk: it looped on that byte for ever.
                    let start = index
                    value(at: "\(path)[\(element)]", member: false)
                    if index == start { index = bytes.count }
                    continue
                }
                let key = string()
                let keyPath = path.isEmpty ? key : "\(path).\(key)"
                if !keys.insert(key).inserted { say("\(keyPath): given twice") }
                skipSpace()
                index += 1  // the colon
                value(at: keyPath, member: true)
            }
        case UInt8(ascii: "\""):
            _ = string()
        default:
            // A number, true, false or null: up to the next delimiter.
            let start = index
            while index < bytes.count, !",]} \t\r\n".utf8.contains(bytes[index]) { index += 1 }
            let literal = bytes[start..<index]
            if literal.elementsEqual("null".utf8) {
                say("\(path.isEmpty ? "the top level" : path): null is no value"
                    + (member ? " (leave the key out for its default)" : ""))
            } else if let first = literal.first, first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) {
                numbers.append((path, start..<index))
            }
        }
    }

    /// The string at `index` (its opening quote), escapes decoded, so `"a"` and `"\u0061"` are one key.
    private mutating func string() -> String {
        let start = index
        index += 1
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
        }
        index += 1
        let literal = Data(bytes[start..<min(index, bytes.count)])
        return (try? JSONDecoder().decode(String.self, from: literal)) ?? String(decoding: literal, as: UTF8.self)
    }

    private mutating func skipSpace() {
        while index < bytes.count, " \t\r\n".utf8.contains(bytes[index]) { index += 1 }
    }
}
