/// An EXIF block: a TIFF stream (byte-order mark first), read for the few tags
/// Kiln acts on. One parser for every format (PNG's eXIf today; the TIFF
/// stream inside JPEG's APP1 and WebP's EXIF chunk tomorrow).
///
/// It reads the first IFD (IFD0) and the Exif sub-IFD it points to (tag
/// 0x8769), in either byte order. Every offset is checked against the stream:
/// a damaged or truncated block never traps, it only has fewer tags. An IFD
/// whose declared entries do not all lie inside the stream is damaged (its
/// count is what a truncation or a flipped bit breaks first, and a wrong count
/// reads other bytes as entries): none of its tags is trusted, so a damaged
/// IFD0 has no orientation (an image is then left as stored), while a damaged
/// Exif sub-IFD only costs the pixel dimensions.
public struct Exif: Sendable, Equatable {
    /// The stream, as given.
    public let bytes: [UInt8]
    /// Intel ("II") byte order; false for Motorola ("MM").
    let littleEndian: Bool
    /// The single-valued SHORT or LONG entries of IFD0 and of the Exif sub-IFD, in stream order.
    private(set) var entries: [Entry] = []

    /// One IFD entry holding one SHORT or LONG, stored in its own 4-byte value field.
    struct Entry: Sendable, Equatable {
        /// Which IFD holds it.
        let directory: Directory
        /// The tag (0x0112 orientation, …).
        let tag: Int
        /// Where the entry's 12 bytes start in the stream.
        let position: Int
        /// SHORT (3) or LONG (4).
        let type: Int
    }

    /// The IFDs read.
    enum Directory: Sendable, Equatable {
        /// The first IFD: the primary image's tags (orientation).
        case primary
        /// The Exif sub-IFD (pixel dimensions).
        case exif
    }

    /// TIFF tags Kiln reads or patches.
    enum Tag {
        static let orientation = 0x0112
        static let imageWidth = 0x0100
        static let imageLength = 0x0101
        static let exifDirectory = 0x8769
        static let gpsDirectory = 0x8825
        static let interoperabilityDirectory = 0xA005
        static let pixelXDimension = 0xA002
        static let pixelYDimension = 0xA003
        /// The thumbnail's directory (IFD1): its JPEG (offset, length) or its strips.
        static let thumbnailOffset = 0x0201
        static let thumbnailLength = 0x0202
        static let stripOffsets = 0x0111
        static let stripByteCounts = 0x0117
        /// IFD0's pixel densities (RATIONALs).
        static let xResolution = 0x011A
        static let yResolution = 0x011B
        /// The Exif sub-IFD's colour space: 1 sRGB, 0xFFFF uncalibrated.
        static let colorSpace = 0xA001
        /// The Interoperability directory's DCF index ("R98": sRGB, "R03": Adobe RGB).
        static let interoperabilityIndex = 0x0001
    }

    /// TIFF field types Kiln reads.
    enum FieldType {
        static let ascii = 2
        static let short = 3
        static let long = 4
        /// A LONG that holds an IFD's offset (TIFF technical note 1).
        static let ifd = 13
    }

    /// Parses `bytes`; nil when they do not start with a TIFF header
    /// ("II" or "MM", 42, the first IFD's offset inside the stream).
    public init?(_ bytes: [UInt8]) {
        guard bytes.count >= 8 else { return nil }
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        self.bytes = bytes
        guard read(at: 2, size: 2) == 42, let first = read(at: 4, size: 4), first >= 8, first < bytes.count else {
            return nil
        }
        var found = directory(at: first, .primary)
        // The Exif sub-IFD, when IFD0 points to one; read once (a pointer back to IFD0 adds nothing).
        if let pointer = pointerToExifDirectory(at: first), pointer != first {
            found += directory(at: pointer, .exif)
        }
        entries = found
    }

    /// The orientation (1–8, tag 0x0112 of IFD0); nil when there is none or its value is out of range.
    public var orientation: Int? {
        value(of: Tag.orientation, in: .primary).flatMap { (1...8).contains($0) ? $0 : nil }
    }

    /// PixelXDimension and PixelYDimension (tags 0xA002, 0xA003 of the Exif sub-IFD), each nil when absent.
    public var pixelDimensions: (width: Int?, height: Int?) {
        (value(of: Tag.pixelXDimension, in: .exif), value(of: Tag.pixelYDimension, in: .exif))
    }

    /// The value of the first entry for `tag` in `directory`.
    func value(of tag: Int, in directory: Directory) -> Int? {
        entries.first { $0.tag == tag && $0.directory == directory }.flatMap(value(of:))
    }

    /// The entry's value: a SHORT is the field's first two bytes (left-aligned), a LONG all four.
    func value(of entry: Entry) -> Int? {
        read(at: entry.position + 8, size: entry.type == FieldType.short ? 2 : 4)
    }

    /// The unsigned integer of `size` bytes at `offset`, in the stream's byte order; nil outside the stream.
    func read(at offset: Int, size: Int) -> Int? {
        guard offset >= 0, size > 0, offset <= bytes.count - size else { return nil }
        let field = bytes[offset..<(offset + size)]
        return (littleEndian ? field.reversed() : Array(field)).reduce(0) { $0 << 8 | Int($1) }
    }

    /// The single-valued SHORT and LONG entries of the IFD at `offset`; none
    /// when its entries run past the stream's end (a damaged IFD).
    private func directory(at offset: Int, _ directory: Directory) -> [Entry] {
        guard let count = read(at: offset, size: 2), count <= (bytes.count - offset - 2) / 12 else { return [] }
        return (0..<count).compactMap { index in
            let position = offset + 2 + 12 * index
            guard let tag = read(at: position, size: 2), let type = read(at: position + 2, size: 2),
                  read(at: position + 4, size: 4) == 1,
                  type == FieldType.short || type == FieldType.long || type == FieldType.ifd else { return nil }
            return Entry(directory: directory, tag: tag, position: position, type: type == FieldType.short ? FieldType.short : FieldType.long)
        }
    }

    /// Whether the EXIF says the colours are Adobe RGB (1998) as DCF does: the Interoperability index
    /// "R03" with a ColorSpace other than 1 (sRGB). A camera set to Adobe RGB writes this and no ICC
    /// profile (Canon's); read as sRGB, its colours come out dull.
    public var saysAdobeRGB: Bool {
        interoperabilityIndex?.value == Self.dcfAdobeRGB && value(of: Tag.colorSpace, in: .exif) != 1
    }

    /// DCF's Interoperability indexes: sRGB's ("R98", the basic file) and Adobe RGB's ("R03", the option file).
    static let dcfSRGB = Array("R98\0".utf8), dcfAdobeRGB = Array("R03\0".utf8)

    /// The Interoperability directory's index (tag 0x0001, four ASCII bytes in the entry), and where its bytes are;
    /// nil where there is none, or it is not of that form.
    var interoperabilityIndex: (value: [UInt8], at: Int)? {
        guard let directory = value(of: Tag.interoperabilityDirectory, in: .exif), directory >= 8,
              let count = read(at: directory, size: 2),
              let index = fields(ofDirectoryAt: directory, count: count).first(where: { $0.tag == Tag.interoperabilityIndex }),
              index.type == FieldType.ascii, index.count == 4, index.position + 12 <= bytes.count else { return nil }
        return (Array(bytes[(index.position + 8)..<(index.position + 12)]), index.position + 8)
    }

    /// One entry of a directory, of a known field type.
    struct Field {
        let tag: Int
        let type: Int
        /// How many values it has.
        let count: Int
        /// Where its 12 bytes start.
        let position: Int
        /// Its values' bytes (`count` × the type's size).
        let bytes: Int
        /// Where its values are stored, when they are too many for the entry's 4-byte field (nil: in the entry).
        let storedAt: Int?
    }

    /// The entries of known field types of the `count`-entry directory at `start` (each one inside the stream).
    func fields(ofDirectoryAt start: Int, count: Int) -> [Field] {
        // A count that runs past the stream is a damaged directory: none of its entries is trusted (as ``directory(at:_:)``).
        guard start >= 0, count <= (bytes.count - start - 2) / 12 else { return [] }
        return (0..<count).compactMap { index in
            let position = start + 2 + 12 * index
            guard let tag = read(at: position, size: 2), let type = read(at: position + 2, size: 2),
                  let values = read(at: position + 4, size: 4), let size = Self.fieldSizes[type] else { return nil }
            let bytes = size * values
            return Field(tag: tag, type: type, count: values, position: position, bytes: bytes,
                         storedAt: bytes > 4 ? read(at: position + 8, size: 4) : nil)
        }
    }

    /// Bytes per value of each TIFF field type (BYTE … IFD).
    private static let fieldSizes = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4]

    /// The Exif sub-IFD's offset (tag 0x8769 of the IFD at `first`), when it lies inside the stream.
    func pointerToExifDirectory(at first: Int) -> Int? {
        let entry = directory(at: first, .primary).first { $0.tag == Tag.exifDirectory && $0.type == FieldType.long }
        guard let offset = entry.flatMap(value(of:)), offset >= 8, offset < bytes.count else { return nil }
        return offset
    }
}
