extension Exif {
    /// The stream with orientation set to `orientation` (when given and the
    /// tag is present) and PixelXDimension/PixelYDimension, and IFD0's
    /// ImageWidth/ImageLength (which TIFF-born EXIF has), set to
    /// `width × height` (each where present), patched in place: the same
    /// layout and length, every other byte as it was. A tag that is absent is
    /// not added (that would move every offset after it).
    ///
    /// A value keeps the type it was found with; only a dimension above
    /// 65535 in a SHORT entry turns the entry into a LONG, which still fits
    /// its 4-byte value field (the count stays 1).
    ///
    /// `droppingThumbnail`: IFD1, the thumbnail's directory, is unlinked (IFD0's link to the next
    /// directory set to 0): a thumbnail of the picture before it was turned, cropped or resized
    /// showed it sideways once the orientation said 1, and uncropped. Its bytes stay, unreferenced.
    public func rewritten(orientation: Int?, width: Int, height: Int, droppingThumbnail: Bool = false) -> [UInt8] {
        var patched = bytes
        if droppingThumbnail, let first = read(at: 4, size: 4), let count = read(at: first, size: 2),
           let next = read(at: first + 2 + 12 * count, size: 4), next != 0 {
            write(0, size: 4, at: first + 2 + 12 * count, into: &patched)
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
            guard value(of: entry) != wanted, let clamped = UInt32(exactly: wanted) else { continue }
            if entry.type == FieldType.short && clamped <= UInt16.max {
                write(UInt32(clamped), size: 2, at: entry.position + 8, into: &patched)
            } else {
                write(UInt32(FieldType.long), size: 2, at: entry.position + 2, into: &patched)
                write(clamped, size: 4, at: entry.position + 8, into: &patched)
            }
        }
        return patched
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
