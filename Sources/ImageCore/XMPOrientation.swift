/// The orientation an XMP packet states (`tiff:Orientation`, as attribute `tiff:Orientation="6"` or
/// element `<tiff:Orientation>6</tiff:Orientation>`), made 1 once the pixels were turned upright.
/// Before, an output whose EXIF said 1 kept XMP saying 6, and a reader that trusts XMP turned it again.
/// Bytes, not a parsed document: nothing else of the packet changes, and a packet that is not valid
/// UTF-8 is still patched.
enum XMPOrientation {
    private static let name = Array("tiff:Orientation".utf8)

    /// `packet` with every value of `tiff:Orientation` that is a number made 1.
    static func upright(_ packet: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(packet.count)
        var index = 0
        while index < packet.count {
            guard packet[index] == UInt8(ascii: "t"), packet[index...].starts(with: name) else {
                result.append(packet[index])
                index += 1
                continue
            }
            // After the name: `="6"`, `= '6'` (an attribute) or `>6<` (an element's text).
            var at = index + name.count
            func skipSpaces() { while at < packet.count, [0x20, 0x09, 0x0A, 0x0D].contains(packet[at]) { at += 1 } }
            skipSpaces()
            if at < packet.count, packet[at] == UInt8(ascii: "=") {
                at += 1
                skipSpaces()
                guard at < packet.count, packet[at] == UInt8(ascii: "\"") || packet[at] == UInt8(ascii: "'") else {
                    result.append(contentsOf: packet[index..<at])
                    index = at
                    continue
                }
                at += 1
            } else if at < packet.count, packet[at] == UInt8(ascii: ">") {
                at += 1
                skipSpaces()
            } else {
                result.append(contentsOf: packet[index..<at])
                index = at
                continue
            }
            let digits = packet[at...].prefix { (0x30...0x39).contains($0) }
            result.append(contentsOf: packet[index..<at])
            result.append(contentsOf: digits.isEmpty ? [] : [UInt8(ascii: "1")])
            index = at + digits.count
        }
        return result
    }
}
