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
                // "Number 1e400 is not representable in Swift.": out of range, in words without Swift.
                let detail = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String)?
                    .replacingOccurrences(of: " is not representable in Swift.", with: " is out of range")
                return "not valid JSON" + (detail.map { " (\($0))" } ?? "")
            }
            guard let (path, number) = unfitNumber(in: data) else {
                return "a number does not fit its value (a fraction where a whole number is needed, or out of range)"
            }
            return number.doubleValue.rounded() == number.doubleValue ? "\(path): \(number) is out of range"
                : "\(path): must be a whole number, not \(number)"
        @unknown default:
            return "\(error)"
        }
    }

    /// The first key an object of `data` (valid JSON) gives twice, by its path ("operations[0].width"), or nil.
    /// JSON leaves duplicates undefined and Foundation keeps one of them silently: a recipe saying
    /// `"width":100, "width":200` must not be read as either.
    package static func duplicateKey(in data: Data) -> String? {
        var scanner = DuplicateKeyScanner(bytes: Array(utf8(data)))
        return scanner.value(at: "")
    }

    /// The first value of `data` (valid JSON) that is `null`, by its path ("output.fit"), or nil. The decoder takes a
    /// null as an omitted key: `{"operations": null}` ran no operations without a word, and `"fit": null` took the
    /// default, where `"sigma": null` was refused.
    package static func nullValue(in data: Data) -> String? {
        func find(_ value: Any, at path: String) -> String? {
            switch value {
            case is NSNull:
                return path
            case let object as [String: Any]:
                for key in object.keys.sorted() {
                    if let found = find(object[key]!, at: path.isEmpty ? key : path + "." + key) { return found }
                }
            case let array as [Any]:
                for (index, element) in array.enumerated() {
                    if let found = find(element, at: path + "[\(index)]") { return found }
                }
            default:
                break
            }
            return nil
        }
        return (try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)).flatMap { find($0, at: "") }
    }

    /// `data` (JSON the decoder read) as UTF-8 without a byte-order mark: the decoder also takes UTF-16 and UTF-32,
    /// and a leading mark (Windows Notepad writes one), which the scanner would read as a word and stop at.
    private static func utf8(_ data: Data) -> Data {
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

    /// Which number the decoder could not take, when it said only "not valid JSON" of valid JSON (a fraction
    /// or an out-of-range number where an integer is decoded): the fractions and numbers past 2^53 are made 1
    /// one after another, each change kept, and the first whose change moves the decoder past that error is
    /// named, with its value (with two bad numbers, the second: the first is said once that one is mended).
    /// Rejected: decoding every whole-number field as Double to check it by hand (every operation's
    /// `init(from:)` would grow a second path, and a new field could forget it).
    private static func unfitNumber(in data: Data) -> (path: String, number: NSNumber)? {
        guard let root = try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed) else { return nil }
        var numbers: [(path: [Step], value: NSNumber)] = []
        func collect(_ value: Any, _ path: [Step]) {
            if let object = value as? [String: Any] {
                object.keys.sorted().forEach { collect(object[$0]!, path + [.key($0)]) }
            } else if let array = value as? [Any] {
                array.indices.forEach { collect(array[$0], path + [.index($0)]) }
            } else if let number = value as? NSNumber, number.doubleValue.rounded() != number.doubleValue
                        || abs(number.doubleValue) >= 0x1p53 {
                numbers.append((path, number))
            }
        }
        collect(root, [])
        var mended = root
        for (path, number) in numbers {
            mended = replacing(mended, at: path[...], with: 1)
            guard let changed = try? JSONSerialization.data(withJSONObject: mended, options: .fragmentsAllowed) else { continue }
            do {
                _ = try JSONDecoder().decode(Recipe.self, from: changed)
            } catch let DecodingError.dataCorrupted(context)
                        where context.codingPath.isEmpty && context.debugDescription.contains("not valid JSON") {
                continue
            } catch {}
            let text = path.map { step in
                switch step {
                case .key(let key): ".\(key)"
                case .index(let index): "[\(index)]"
                }
            }.joined()
            return (text.hasPrefix(".") ? String(text.dropFirst()) : text, number)
        }
        return nil
    }

    /// One step of a path into parsed JSON.
    private enum Step {
        case key(String)
        case index(Int)
    }

    private static func replacing(_ value: Any, at path: ArraySlice<Step>, with replacement: Any) -> Any {
        guard let step = path.first else { return replacement }
        switch step {
        case .key(let key):
            var object = value as! [String: Any]
            object[key] = replacing(object[key]!, at: path.dropFirst(), with: replacement)
            return object
        case .index(let index):
            var array = value as! [Any]
            array[index] = replacing(array[index], at: path.dropFirst(), with: replacement)
            return array
        }
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

/// Walks valid JSON's bytes for an object giving a key twice (what a parser into a dictionary cannot see).
private struct DuplicateKeyScanner {
    let bytes: [UInt8]
    var index = 0

    /// Scans the value at `index`; returns the path of the first duplicated key in it, or nil.
    mutating func value(at path: String) -> String? {
        skipSpace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var keys = Set<String>()
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] != UInt8(ascii: "}") else { index += 1; return nil }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                let key = string()
                let keyPath = path.isEmpty ? key : "\(path).\(key)"
                guard keys.insert(key).inserted else { return keyPath }
                skipSpace()
                index += 1 // the colon
                if let duplicate = value(at: keyPath) { return duplicate }
            }
        case UInt8(ascii: "["):
            index += 1
            var element = 0
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] != UInt8(ascii: "]") else { index += 1; return nil }
                if bytes[index] == UInt8(ascii: ",") { index += 1; element += 1; continue }
                if let duplicate = value(at: "\(path)[\(element)]") { return duplicate }
            }
        case UInt8(ascii: "\""):
            _ = string()
            return nil
        default:
            // A number, true, false or null: up to the next delimiter.
            while index < bytes.count, !",]} \t\r\n".utf8.contains(bytes[index]) { index += 1 }
            return nil
        }
    }

    /// The string at `index` (its opening quote), escapes decoded, so `"a"` and `"\u0061"` are one key.
    mutating func string() -> String {
        let start = index
        index += 1
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
        }
        index += 1
        let literal = Data(bytes[start..<min(index, bytes.count)])
        return (try? JSONDecoder().decode(String.self, from: literal)) ?? String(decoding: literal, as: UTF8.self)
    }

    mutating func skipSpace() {
        while index < bytes.count, " \t\r\n".utf8.contains(bytes[index]) { index += 1 }
    }
}
