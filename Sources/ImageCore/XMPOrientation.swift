/// The orientation an XMP packet states (`tiff:Orientation`, as attribute `tiff:Orientation="6"` inside a
/// tag, or element `<tiff:Orientation>6</tiff:Orientation>`), made 1 once the pixels were turned upright.
/// Before, an output whose EXIF said 1 kept XMP saying 6, and a reader that trusts XMP turned it again.
/// Bytes, not a parsed document: nothing else of the packet changes, a packet that is not valid UTF-8 is
/// still patched, and the same words in text (a description that quotes them) are left alone. The prefix is
/// the one the packet binds to the TIFF namespace (`xmlns:t="http://ns.adobe.com/tiff/1.0/"`: an XMP
/// prefix is the writer's choice, and `t:Orientation="6"` was left saying 6), else `tiff` unless the packet
/// binds `tiff` to another namespace; a prefix bound to another namespace is left alone.
enum XMPOrientation {
    private static let namespace = Array("http://ns.adobe.com/tiff/1.0/".utf8)

    /// XML's white space: space, tab, line feed, carriage return.
    private static func isSpace(_ byte: UInt8) -> Bool { [0x20, 0x09, 0x0A, 0x0D].contains(byte) }

    /// `packet` with every number stated as the TIFF namespace's `Orientation` made 1.
    static func upright(_ packet: [UInt8]) -> [UInt8] {
        let names = prefixes(in: packet).map { Array("\($0):Orientation".utf8) }
        var result: [UInt8] = []
        result.reserveCapacity(packet.count)
        var inTag = false
        var index = 0
        while index < packet.count {
            let byte = packet[index]
            if byte == UInt8(ascii: "<") { inTag = true } else if byte == UInt8(ascii: ">") { inTag = false }
            let before = index > 0 ? packet[index - 1] : 0
            // An attribute: inside a tag, after white space. An element: right after its "<".
            let attribute = inTag && isSpace(before)
            let element = before == UInt8(ascii: "<")
            guard attribute || element, let name = names.first(where: { packet[index...].starts(with: $0) }),
                  let value = valueRange(in: packet, after: index + name.count, element: element) else {
                result.append(byte)
                index += 1
                continue
            }
            result.append(contentsOf: packet[index..<value.lowerBound])
            result.append(UInt8(ascii: "1"))
            // The element's ">" was passed: outside the tag now.
            if element { inTag = false }
            index = value.upperBound
        }
        return result
    }

    /// The prefixes `packet` binds to the TIFF namespace (`xmlns:PREFIX="…"`), or `tiff` where it binds none and
    /// does not bind `tiff` to another (bindings are taken for the whole packet, not per element).
    private static func prefixes(in packet: [UInt8]) -> [String] {
        let binding = Array("xmlns:".utf8)
        var found: [String] = [], elsewhere = false
        var index = 0
        while index + binding.count < packet.count {
            defer { index += 1 }
            guard packet[index] == binding[0], packet[index...].starts(with: binding) else { continue }
            var at = index + binding.count
            let name = packet[at...].prefix { $0 != UInt8(ascii: "=") && !isSpace($0) }
            at += name.count
            while at < packet.count, isSpace(packet[at]) { at += 1 }
            guard at < packet.count, packet[at] == UInt8(ascii: "=") else { continue }
            at += 1
            while at < packet.count, isSpace(packet[at]) { at += 1 }
            guard at < packet.count, packet[at] == UInt8(ascii: "\"") || packet[at] == UInt8(ascii: "'") else { continue }
            guard !name.isEmpty, let text = String(validating: name, as: UTF8.self) else { continue }
            if packet[(at + 1)...].starts(with: namespace + [packet[at]]) {
                found.append(text)
            } else if text == "tiff" {
                elsewhere = true
            }
        }
        return found.isEmpty && !elsewhere ? ["tiff"] : found
    }

    /// Where the number stands after the name that ends at `start`: `="6"`, `= '6'` for an attribute,
    /// `>6` for an element; nil when no number does.
    private static func valueRange(in packet: [UInt8], after start: Int, element: Bool) -> Range<Int>? {
        var at = start
        func skipSpaces() { while at < packet.count, isSpace(packet[at]) { at += 1 } }
        skipSpaces()
        guard at < packet.count else { return nil }
        if element {
            guard packet[at] == UInt8(ascii: ">") else { return nil }
            at += 1
            skipSpaces()
        } else {
            guard packet[at] == UInt8(ascii: "=") else { return nil }
            at += 1
            skipSpaces()
            guard at < packet.count, packet[at] == UInt8(ascii: "\"") || packet[at] == UInt8(ascii: "'") else { return nil }
            at += 1
        }
        let digits = packet[at...].prefix { (0x30...0x39).contains($0) }.count
        return digits > 0 ? at..<(at + digits) : nil
    }
}
