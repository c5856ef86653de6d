extension ImageMetadata {
    /// Makes the EXIF describe an output of `width × height`: PixelXDimension
    /// and PixelYDimension (where the block has them) say its true size, and,
    /// when `upright` (the source's orientation was applied to the pixels),
    /// its orientation tag says 1, and so does XMP's `tiff:Orientation`; XMP's
    /// size (``XMPProperties``) says the true size too. Both
    /// the fields and every carried EXIF and XMP block are patched, in place
    /// (``Exif/rewritten(orientation:width:height:droppingThumbnail:transposed:)``); a block that is not a
    /// TIFF stream (damaged, or another format's framing) is left as it is, and
    /// so is XMP in a compressed chunk. `pictureChanged`: the pixels are not the
    /// source's as it shows them (turned, an operation applied), so the EXIF
    /// thumbnail, a picture of the source, is left out. `transposed`: the output's axes are the source's swapped
    /// (an odd number of quarter turns, the EXIF orientation's and `--rotate`'s), so the resolution's two
    /// densities swap too, in the fields, the EXIF and a carried pHYs.
    public mutating func describeOutput(width: Int, height: Int, upright: Bool, pictureChanged: Bool, transposed: Bool = false) {
        // A quarter turn swaps the axes: the density across is the one that was down (a 2 : 1 aspect, or 300 × 150
        // dpi, turned showed stretched).
        if transposed, let density = resolution {
            resolution = Resolution(x: density.y, y: density.x, perMetre: density.perMetre)
        }
        // XMP's orientation follows the EXIF tag kiln applies; where the EXIF has none, kiln turned nothing,
        // and an orientation XMP alone states stays for the readers that honour it.
        let stated = exif.flatMap(Exif.init)?.value(of: Exif.Tag.orientation, in: .primary) != nil
        patchExif { exif in
            exif.rewritten(orientation: upright ? 1 : nil, width: width, height: height, droppingThumbnail: pictureChanged,
                           transposed: transposed)
        }
        let (across, down) = (String(width), String(height))
        setXMP([.tiff("ImageWidth", across), .tiff("ImageLength", down), .exif("PixelXDimension", across),
                .exif("PixelYDimension", down)] + (upright && stated ? [.tiff("Orientation", "1")] : []))
        guard transposed, var blocks = carried?.blocks else { return }
        for index in blocks.indices where blocks[index].type == "pHYs" && blocks[index].data.count == 9 {
            let data = blocks[index].data
            blocks[index].data = Array(data[4..<8] + data[0..<4] + data[8...])
        }
        carried?.blocks = blocks
    }

    /// Makes the EXIF say which colours the pixels are in once they were converted into sRGB (`sRGB`) or
    /// another profile (``Exif/describingColours(sRGB:)``), in the field and every carried EXIF block; and XMP
    /// too: its `exif:ColorSpace`, and its `photoshop:ICCProfile` the profile's name (`profileName`: "Display P3").
    public mutating func describeColours(sRGB: Bool, profileName: String) {
        patchExif { $0.describingColours(sRGB: sRGB) }
        setXMP([.exif("ColorSpace", sRGB ? "1" : "65535"), .photoshop("ICCProfile", profileName)])
    }

    /// The XMP field and every carried uncompressed XMP chunk stating `settings`' values
    /// (``XMPProperties/setting(_:in:)``); XMP in a compressed chunk is left as it is.
    private mutating func setXMP(_ settings: [XMPProperties.Setting]) {
        xmp = xmp.map { XMPProperties.setting(settings, in: $0) }
        guard var blocks = carried?.blocks else { return }
        for index in blocks.indices where blocks[index].kind == .text && blocks[index].data.starts(with: Self.uncompressedXMPChunk) {
            blocks[index].data = XMPProperties.setting(settings, in: blocks[index].data)
        }
        carried?.blocks = blocks
    }

    /// The EXIF field and every carried EXIF block, each that is a TIFF stream, as `patch` makes it.
    private mutating func patchExif(_ patch: (Exif) -> [UInt8]) {
        func apply(_ stream: [UInt8]) -> [UInt8] { Exif(stream).map(patch) ?? stream }
        exif = exif.map(apply)
        guard var blocks = carried?.blocks else { return }
        for index in blocks.indices where blocks[index].kind == .exif { blocks[index].data = apply(blocks[index].data) }
        carried?.blocks = blocks
    }

    /// Leaves out what the source says of its samples' values that new values make false: PNG's sBIT (how many
    /// of each sample's bits are significant), once an operation or a colour conversion computed new values (a
    /// resize of 5-6-5 data makes values of every bit; a reader that honours the chunk drops the low ones). vips
    /// and ImageMagick drop it after a resize too; a crop, a turn or a mirror keeps it.
    public mutating func forgetSampleValues() {
        carried?.blocks.removeAll { $0.type == "sBIT" }
    }

    /// How a PNG's iTXt chunk of uncompressed XMP starts: its keyword, NUL, compression flag 0.
    private static let uncompressedXMPChunk = Array("XML:com.adobe.xmp".utf8) + [0, 0]
}
