extension Exif {
    /// The stream with orientation set to `orientation` (when given and the
    /// tag is present) and PixelXDimension/PixelYDimension, and IFD0's
    /// ImageWidth/ImageLength (which TIFF-born EXIF has), set to
    /// `width × height` (each where present), patched in place: the same
    /// layout and length, every other byte as it was (but for a thumbnail
    /// dropped, below). A tag that is absent is not added (that would move
    /// every offset after it).
    ///
    /// A value keeps the type it was found with; only a dimension above
    /// 65535 in a SHORT entry turns the entry into a LONG, which still fits
    /// its 4-byte value field (the count stays 1).
    ///
    /// `droppingThumbnail`: IFD1, the thumbnail's directory, is unlinked (IFD0's link to the next
    /// directory set to 0): a thumbnail of the picture before it was turned, cropped or resized
    /// showed it sideways once the orientation said 1, and uncropped. Its bytes go too
    /// (``thumbnailRanges(at:)``): the directory, its values and the thumbnail are zeroed, and cut
    /// off where they end the stream. Unreferenced but kept, a crop's thumbnail still held the
    /// whole picture for anyone to carve out (13 KB of a 31 KB output). The stream is then
    /// shorter, or as long with those bytes zero.
    ///
    /// `transposed`: the output's axes are the source's swapped (an odd number of quarter turns), so
    /// IFD0's XResolution and YResolution trade places: each entry takes the other's type, count and
    /// value (a RATIONAL's offset), so the layout stays. Kept as they were, a 300 × 150 dpi photo
    /// turned said the density across was the one that is now down (the JFIF or pHYs beside it
    /// already said otherwise).
    public func rewritten(orientation: Int?, width: Int, height: Int, droppingThumbnail: Bool = false,
                          transposed: Bool = false) -> [UInt8] {
        var patched = bytes
        if transposed, let first = read(at: 4, size: 4), let count = read(at: first, size: 2) {
            let fields = fields(ofDirectoryAt: first, count: count)
            if let x = fields.first(where: { $0.tag == Tag.xResolution }), let y = fields.first(where: { $0.tag == Tag.yResolution }),
               max(x.position, y.position) + 12 <= bytes.count {
                let across = x.position + 2..<x.position + 12, down = y.position + 2..<y.position + 12
                patched.replaceSubrange(across, with: bytes[down])
                patched.replaceSubrange(down, with: bytes[across])
            }
        }
        var end = bytes.count
        if droppingThumbnail, let first = read(at: 4, size: 4), let count = read(at: first, size: 2),
           let next = read(at: first + 2 + 12 * count, size: 4), next != 0 {
            write(0, size: 4, at: first + 2 + 12 * count, into: &patched)
            let ranges = thumbnailRanges(at: next)
            for range in ranges { patched.replaceSubrange(range, with: repeatElement(0, count: range.count)) }
            // Cut what the ranges cover at the end (a TIFF writer's pad byte to an even offset included).
            while let last = ranges.first(where: { range in
                range.lowerBound < end && (range.upperBound >= end || range.upperBound == end - 1 && patched[end - 1] == 0)
            }) {
                end = last.lowerBound
            }
        }
        for entry in entries {
            let wanted: Int
            switch (entry.directory, entry.tag) {
            case (.primary, Tag.orientation):
                // A value outside 1–8 (0, 9, 65535) was applied as none: written as 1 too, as the pixels are
                // stored, which is how viewers show such a file.
                guard let orientation else { continue }
                wanted = orientation
            case (.exif, Tag.pixelXDimension), (.primary, Tag.imageWidth): wanted = width
            case (.exif, Tag.pixelYDimension), (.primary, Tag.imageLength): wanted = height
            default: continue
            }
            set(entry, to: wanted, in: &patched)
        }
        return Array(patched.prefix(end))
    }

    /// The stream saying which colours its pixels are in after a conversion into sRGB (`sRGB`) or
    /// another profile: the Exif sub-IFD's ColorSpace 1 (sRGB) or 0xFFFF (uncalibrated), and the
    /// Interoperability directory's index "R98" (DCF's sRGB file) for sRGB; for another profile an
    /// index of "R98" or "R03" (DCF's Adobe RGB file) is blanked, which would name colours the pixels
    /// are not in. Each where present, patched in place (darktable says the output's space alike).
    /// Kept as they were, a photo converted to Display P3 still said sRGB, and one from Adobe RGB to
    /// sRGB said Adobe RGB: a viewer that reads these where there is no profile (`--keep exif`)
    /// showed its colours wrong.
    public func describingColours(sRGB: Bool) -> [UInt8] {
        var patched = bytes
        if let entry = entries.first(where: { $0.directory == .exif && $0.tag == Tag.colorSpace }) {
            set(entry, to: sRGB ? 1 : 0xFFFF, in: &patched)
        }
        if let index = interoperabilityIndex, [Self.dcfSRGB, Self.dcfAdobeRGB].contains(index.value) {
            patched.replaceSubrange(index.at..<(index.at + 4), with: sRGB ? Self.dcfSRGB : [0, 0, 0, 0])
        }
        return patched
    }

    /// Sets the single-valued SHORT or LONG `entry` to `wanted`, keeping its type; only a value
    /// above 65535 in a SHORT entry turns the entry into a LONG (its 4-byte field holds it).
    private func set(_ entry: Entry, to wanted: Int, in patched: inout [UInt8]) {
        guard value(of: entry) != wanted, let clamped = UInt32(exactly: wanted) else { return }
        if entry.type == FieldType.short && clamped <= UInt16.max {
            write(UInt32(clamped), size: 2, at: entry.position + 8, into: &patched)
        } else {
            write(UInt32(FieldType.long), size: 2, at: entry.position + 2, into: &patched)
            write(clamped, size: 4, at: entry.position + 8, into: &patched)
        }
    }

    /// The bytes of the thumbnail's IFD at `offset`: the directory itself, the values of its entries
    /// stored outside it (a resolution's RATIONAL), and the pictures its JPEGInterchangeFormat (a JPEG:
    /// it must start with SOI) and StripOffsets entries point to, clamped to the stream; none when the
    /// directory runs past the stream (damaged) or lies in a kept one (a link back to IFD0 or into the Exif
    /// sub-IFD: a damaged pointer, a loop). What a range shares with what is kept (``keptRanges()``) is left
    /// out of it: a stale offset zeroed a MakerNote or a date, which kiln keeps.
    private func thumbnailRanges(at offset: Int) -> [Range<Int>] {
        guard offset >= 8, let count = read(at: offset, size: 2), offset + 2 + 12 * count + 4 <= bytes.count else { return [] }
        let kept = keptRanges()
        let directory = offset..<(offset + 2 + 12 * count + 4)
        guard !kept.contains(where: { $0.overlaps(directory) }) else { return [] }
        var ranges = [directory]
        func add(_ start: Int?, _ length: Int?) {
            guard let start, let length, start >= 8, start < bytes.count, length > 0 else { return }
            ranges.append(start..<(start + min(length, bytes.count - start)))
        }
        var fields: [Int: Field] = [:]
        for field in self.fields(ofDirectoryAt: offset, count: count) {
            fields[field.tag] = field
            if let at = field.storedAt, at <= bytes.count - field.bytes { add(at, field.bytes) }
        }
        /// The `index`th value of the entry for `tag` (a SHORT or LONG), inline or at its offset.
        func value(_ tag: Int, _ index: Int) -> Int? {
            guard let field = fields[tag], field.type == FieldType.short || field.type == FieldType.long,
                  index < field.count else { return nil }
            let size = field.type == FieldType.short ? 2 : 4
            let base = field.bytes > 4 ? field.storedAt : field.position + 8
            return base.flatMap { read(at: $0 + size * index, size: size) }
        }
        if let start = value(Tag.thumbnailOffset, 0), read(at: start, size: 2) == (littleEndian ? 0xD8FF : 0xFFD8) {
            // A length of 0 or past the block (a writer's slip): the JPEG ends at its EOI (FF D9 comes nowhere else
            // in a JPEG's coded data, where FF is followed by 00), else with the block.
            let declared = value(Tag.thumbnailLength, 0) ?? 0
            let eoi = stride(from: start + 2, to: bytes.count - 1, by: 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xD9 }
            let end = declared > 0 && declared <= bytes.count - start ? start + declared : eoi.map { $0 + 2 } ?? bytes.count
            add(start, end - start)
        }
        for strip in 0..<min(fields[Tag.stripOffsets]?.count ?? 0, 1024) {
            add(value(Tag.stripOffsets, strip), value(Tag.stripByteCounts, strip))
        }
        // What overlaps something kept (a thumbnail inside a MakerNote's extent) goes but for that part.
        return ranges.flatMap { range in
            kept.reduce([range]) { pieces, keep in
                pieces.flatMap { piece -> [Range<Int>] in
                    guard piece.overlaps(keep) else { return [piece] }
                    // Clamped: a value kept may start before the piece or end after it (a range whose bounds cross
                    // traps).
                    return [piece.lowerBound..<max(piece.lowerBound, keep.lowerBound),
                            min(piece.upperBound, keep.upperBound)..<piece.upperBound].filter { !$0.isEmpty }
                }
            }
        }
    }

    /// What the output keeps of the stream: the header, and IFD0 and the Exif, GPS and Interoperability
    /// sub-IFDs, each directory with the values its entries store outside it (a MakerNote, a date).
    private func keptRanges() -> [Range<Int>] {
        var ranges = [0..<8]
        var visited = Set<Int>()
        func walk(_ start: Int?) {
            guard let start, start >= 8, visited.insert(start).inserted, let count = read(at: start, size: 2),
                  start + 2 + 12 * count <= bytes.count else { return }
            ranges.append(start..<min(bytes.count, start + 2 + 12 * count + 4))
            for field in fields(ofDirectoryAt: start, count: count) {
                if let at = field.storedAt, at < bytes.count { ranges.append(at..<min(bytes.count, at + field.bytes)) }
                if [Tag.exifDirectory, Tag.gpsDirectory, Tag.interoperabilityDirectory].contains(field.tag), field.count == 1,
                   field.type == FieldType.long || field.type == FieldType.ifd {
                    walk(read(at: field.position + 8, size: 4))
                }
            }
        }
        walk(read(at: 4, size: 4))
        return ranges
    }

    /// Writes the low `size` bytes of `value` at `offset`, in the stream's byte order
    /// (the parser only records entries whose fields lie inside the stream).
    private func write(_ value: UInt32, size: Int, at offset: Int, into stream: inout [UInt8]) {
        for index in 0..<size {
            let shift = 8 * (littleEndian ? index : size - 1 - index)
            stream[offset + index] = UInt8(truncatingIfNeeded: value >> UInt32(shift))
        }
    }
}
