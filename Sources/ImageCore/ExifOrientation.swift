/// Reads the orientation tag (0x0112) from the first IFD of an EXIF TIFF stream.
enum ExifOrientation {
    /// The orientation (1–8), or nil when the stream has none or is damaged.
    static func read(_ tiff: [UInt8]) -> Int? {
        guard tiff.count >= 8 else { return nil }
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func value(_ offset: Int, _ size: Int) -> Int? {
            guard offset >= 0, offset + size <= tiff.count else { return nil }
            let bytes = tiff[offset..<(offset + size)]
            return (little ? bytes.reversed() : Array(bytes)).reduce(0) { $0 << 8 | Int($1) }
        }
        guard value(2, 2) == 42, let ifd = value(4, 4), let count = value(ifd, 2) else { return nil }
        for entry in 0..<count {
            let at = ifd + 2 + 12 * entry
            guard let tag = value(at, 2) else { return nil }
            // SHORT (type 3), one value, stored left-aligned in the 4-byte field.
            if tag == 0x0112, value(at + 2, 2) == 3, let orientation = value(at + 8, 2) {
                return (1...8).contains(orientation) ? orientation : nil
            }
        }
        return nil
    }
}
