extension ImageMetadata {
    /// Makes the EXIF describe an output of `width × height`: PixelXDimension
    /// and PixelYDimension (where the block has them) say its true size, and,
    /// when `upright` (the source's orientation was applied to the pixels),
    /// its orientation tag says 1. Both the EXIF field and every carried EXIF
    /// block are patched, in place (``Exif/rewritten(orientation:width:height:)``);
    /// a block that is not a TIFF stream (damaged, or another format's framing)
    /// is left as it is.
    public mutating func describeOutput(width: Int, height: Int, upright: Bool) {
        func patch(_ stream: [UInt8]) -> [UInt8] {
            Exif(stream)?.rewritten(orientation: upright ? 1 : nil, width: width, height: height) ?? stream
        }
        exif = exif.map(patch)
        guard var blocks = carried?.blocks else { return }
        for index in blocks.indices where blocks[index].kind == .exif {
            blocks[index].data = patch(blocks[index].data)
        }
        carried?.blocks = blocks
    }
}
