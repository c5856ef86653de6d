/// What an XMP packet states of the picture — its orientation (`tiff:Orientation`), size (`tiff:ImageWidth`,
/// `tiff:ImageLength`, `exif:PixelXDimension`, `exif:PixelYDimension`) and colours (`exif:ColorSpace`,
/// `photoshop:ICCProfile`) — made to say what the output is, as its EXIF does. Each is set where the packet
/// states it (as attribute `tiff:Orientation="6"` inside a tag, or element `<tiff:Orientation>6</tiff:Orientation>`),
/// never added. Before, an output whose EXIF said orientation 1 kept XMP saying 6, and a reader that trusts XMP
/// turned it again; a photo resized to 100 × 67 and converted to Display P3 kept XMP saying 600 × 400 and
/// "Adobe RGB (1998)", which Lightroom and exiftool show.
///
/// Bytes, not a parsed document: nothing else of the packet changes, a packet that is not valid UTF-8 is still
/// patched, and the same words in text (a description that quotes them) are left alone. The prefix is the one the
/// packet binds to the property's namespace (`xmlns:t="http://ns.adobe.com/tiff/1.0/"`: an XMP prefix is the
/// writer's choice, and `t:Orientation="6"` was left saying 6), else the usual one (`tiff`) unless the packet binds
/// that to another namespace; a prefix bound to another namespace is left alone. An element whose content is not
/// text (another element: an `rdf:Alt`) is left alone.
enum XMPProperties {
    /// A value to state: the property's namespace, its usual prefix, its name and the value (text, escaped here).
    struct Setting {
        let namespace: String
        let prefix: String
        let name: String
        let value: String

        /// `tiff:Orientation`, the TIFF namespace's `name`.
        static func tiff(_ name: String, _ value: String) -> Setting {
            Setting(namespace: "http://ns.adobe.com/tiff/1.0/", prefix: "tiff", name: name, value: value)
        }

        /// `exif:PixelXDimension`, the EXIF namespace's `name`.
        static func exif(_ name: String, _ value: String) -> Setting {
            Setting(namespace: "http://ns.adobe.com/exif/1.0/", prefix: "exif", name: name, value: value)
        }

        /// `photoshop:ICCProfile`, the Photoshop namespace's `name`.
        static func photoshop(_ name: String, _ value: String) -> Setting {
            Setting(namespace: "http://ns.adobe.com/photoshop/1.0/", prefix: "photoshop", name: name, value: value)
        }
    }

    /// XML's white space: space, tab, line feed, carriage return.
    private static func isSpace(_ byte: UInt8) -> Bool { [0x20, 0x09, 0x0A, 0x0D].contains(byte) }

    /// `packet` with every value it states of the properties of `settings` replaced by the setting's.
    static func setting(_ settings: [Setting], in packet: [UInt8]) -> [UInt8] {
        // Each qualified name the packet may use, with the bytes of its new value.
        // The packet's bindings read once a namespace (seven settings, three namespaces).
        var bound: [String: [String]] = [:]
        let names: [(name: [UInt8], value: [UInt8])] = settings.flatMap { setting in
            let prefixes = bound[setting.namespace] ?? prefixes(in: packet, of: setting)
            bound[setting.namespace] = prefixes
            return prefixes.map { (Array("\($0):\(setting.name)".utf8), escaped(setting.value)) }
        }
        guard !names.isEmpty else { return packet }
        var result: [UInt8] = []
        result.reserveCapacity(packet.count)
        var inTag = false
        // The quote an attribute's value inside a tag opened: its text (which may quote `tiff:ImageWidth='400'`) is
        // no attribute, and its `>` ends no tag.
        var quote: UInt8?
        var index = 0
        while index < packet.count {
            // A comment or a CDATA section is text, whatever it quotes: copied as it is (the sizes quoted in a
            // description's CDATA were rewritten).
            if quote == nil, let end = Self.skipped.lazy.compactMap({ open, close in
                packet[index...].starts(with: open) ? Self.end(of: close, in: packet, after: index + open.count) : nil
            }).first {
                result.append(contentsOf: packet[index..<end])
                index = end
                continue
            }
            let byte = packet[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "<") {
                inTag = true
            } else if byte == UInt8(ascii: ">") {
                inTag = false
            } else if inTag, byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            }
            let before = index > 0 ? packet[index - 1] : 0
            // An attribute: inside a tag, outside a value, after white space. An element: right after its "<".
            let attribute = inTag && quote == nil && isSpace(before)
            let element = before == UInt8(ascii: "<")
            guard attribute || element,
                  let (name, value) = names.first(where: { packet[index...].starts(with: $0.name) }),
                  let range = valueRange(in: packet, after: index + name.count, element: element) else {
                result.append(byte)
                index += 1
                continue
            }
            result.append(contentsOf: packet[index..<range.lowerBound])
            result.append(contentsOf: value)
            if element {
                inTag = false  // The element's ">" was passed: outside the tag now.
                index = range.upperBound
            } else {
                result.append(packet[range.upperBound])  // The value's closing quote: the tag goes on.
                index = range.upperBound + 1
            }
        }
        return result
    }

    /// What opens and closes the parts of a packet that are text, whatever they hold: comments and CDATA sections.
    private static let skipped = [(Array("<!--".utf8), Array("-->".utf8)), (Array("<![CDATA[".utf8), Array("]]>".utf8))]

    /// Where `close` ends, looking from `start` on (the packet's end when it never does).
    private static func end(of close: [UInt8], in packet: [UInt8], after start: Int) -> Int {
        var at = start
        while at + close.count <= packet.count {
            if packet[at] == close[0], packet[at...].starts(with: close) { return at + close.count }
            at += 1
        }
        return packet.count
    }

    /// `text` as XML character data or an attribute's value.
    private static func escaped(_ text: String) -> [UInt8] {
        Array(text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&apos;").utf8)
    }

    /// The prefixes `packet` binds to the namespace of `setting` (`xmlns:PREFIX="…"`), or its usual prefix where
    /// the packet binds none and does not bind that one to another (bindings are taken for the whole packet, not
    /// per element).
    private static func prefixes(in packet: [UInt8], of setting: Setting) -> [String] {
        let namespace = Array(setting.namespace.utf8)
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
            } else if text == setting.prefix {
                elsewhere = true
            }
        }
        return found.isEmpty && !elsewhere ? [setting.prefix] : found
    }

    /// Where the value stands after the name that ends at `start`: inside the quotes of `="6"` or `= '6'` for an
    /// attribute, between `>` and the next `<` for an element (its white space around it kept); nil when there is
    /// none, or when an element's content is not text.
    private static func valueRange(in packet: [UInt8], after start: Int, element: Bool) -> Range<Int>? {
        var at = start
        func skipSpaces() { while at < packet.count, isSpace(packet[at]) { at += 1 } }
        skipSpaces()
        guard at < packet.count else { return nil }
        if element {
            guard packet[at] == UInt8(ascii: ">") else { return nil }
            at += 1
            skipSpaces()
            let length = packet[at...].prefix { $0 != UInt8(ascii: "<") }.count
            // Trailing white space stays where it was.
            var end = at + length
            while end > at, isSpace(packet[end - 1]) { end -= 1 }
            guard at + length < packet.count, end > at else { return nil }
            return at..<end
        }
        guard packet[at] == UInt8(ascii: "=") else { return nil }
        at += 1
        skipSpaces()
        guard at < packet.count, packet[at] == UInt8(ascii: "\"") || packet[at] == UInt8(ascii: "'") else { return nil }
        let quote = packet[at]
        at += 1
        let length = packet[at...].prefix { $0 != quote }.count
        guard at + length < packet.count, length > 0 else { return nil }
        return at..<(at + length)
    }
}
