import Foundation

/// `job.json` for a plan of any length: Foundation's `JSONEncoder` builds a tree
/// of every value before it writes a byte, which for 100,000 items is a
/// fraction of a second and tens of megabytes before the first image starts.
/// The items — the only part that grows with the batch — are written here
/// directly, in the same form `JSONDecoder` reads back (`JobRecord` keeps its
/// `Codable` shape: the file is what `JSONEncoder` would write, keys sorted).
package enum JobRecordEncoding {
    /// The record as JSON, its items written without the encoder's tree.
    package static func encode(_ record: JobRecord, with encoder: JSONEncoder) throws -> Data {
        var head = record
        head.items = []
        let skeleton = [UInt8](try encoder.encode(head))
        // Keys are sorted and only strings precede "items", so its first unescaped occurrence is the key.
        let marker = Array(#""items":[]"#.utf8)
        guard let start = firstIndex(of: marker, in: skeleton) else { return try encoder.encode(record) }
        var out = [UInt8]()
        out.reserveCapacity(skeleton.count + record.items.count * 96)
        out += skeleton[..<(start + marker.count - 1)]
        for (index, item) in record.items.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += Array(#"{"input":"#.utf8)
            appendString(item.input, to: &out)
            out += Array(#","output":"#.utf8)
            appendString(item.output, to: &out)
            if let problem = item.problem {
                out += Array(#","problem":"#.utf8)
                appendString(problem, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out += skeleton[(start + marker.count - 1)...]
        return Data(out)
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped, the rest as UTF-8.
    static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                        hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func firstIndex(of marker: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= marker.count else { return nil }
        for start in 0...(bytes.count - marker.count) where bytes[start] == marker[0] {
            if bytes[start..<(start + marker.count)].elementsEqual(marker) { return start }
        }
        return nil
    }
}
