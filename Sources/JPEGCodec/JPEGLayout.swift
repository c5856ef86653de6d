/// A JPEG stream's marker segments without its entropy-coded data: what an
/// export chose (metadata, quantization tables, frame, scans), apart from what
/// its pixels coded to.
enum JPEGLayout {
    /// DHT: optimised Huffman tables follow the coefficients, so pixels made on
    /// another backend may change them.
    static let huffmanTables: UInt8 = 0xC4

    /// The marker segments of `jpeg` from SOI to EOI, each as its marker code,
    /// length and payload, with each scan's coded data and the markers in
    /// `leftOut` left out, then whatever follows EOI (a trailer another tool
    /// appended, none in Kiln's); nil when the stream does not parse as segments.
    static func segments(_ jpeg: [UInt8], leavingOut leftOut: Set<UInt8>) -> [ArraySlice<UInt8>]? {
        guard jpeg.count >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return nil }
        var segments: [ArraySlice<UInt8>] = []
        var offset = 2
        while true {
            // A marker: 0xFF, any fill bytes (more 0xFF), then its code.
            guard offset < jpeg.count, jpeg[offset] == 0xFF else { return nil }
            while offset < jpeg.count, jpeg[offset] == 0xFF { offset += 1 }
            guard offset < jpeg.count else { return nil }
            let marker = jpeg[offset]
            offset += 1
            if marker == 0xD9 { return offset < jpeg.count ? segments + [jpeg[offset...]] : segments }
            // Markers without a length: TEM and restarts.
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }
            guard offset + 2 <= jpeg.count else { return nil }
            let length = Int(jpeg[offset]) << 8 | Int(jpeg[offset + 1])
            guard length >= 2, offset + length <= jpeg.count else { return nil }
            if !leftOut.contains(marker) { segments.append(jpeg[(offset - 1)..<(offset + length)]) }
            offset += length
            guard marker == 0xDA else { continue }
            // The scan's coded data runs to the next marker that is neither a stuffed 0xFF00 nor a restart.
            while offset + 1 < jpeg.count,
                  !(jpeg[offset] == 0xFF && jpeg[offset + 1] != 0x00 && !(0xD0...0xD7).contains(jpeg[offset + 1])) {
                offset += 1
            }
            guard offset + 1 < jpeg.count else { return nil }
        }
    }
}
