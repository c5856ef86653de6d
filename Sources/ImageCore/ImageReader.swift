/// A decoder of one image, row by row (SPEC §8): what every codec's reader
/// implements and what the render stage pulls from. Rows come forward only;
/// ``finish()`` reads the rest of the file, so an image is accepted only when
/// the whole file is valid, whatever part of it the operations needed.
///
/// Not thread-safe: one reader is used by one thread at a time.
public protocol ImageReader: AnyObject, RowSource {
    /// What the file declares, known before the first row.
    var header: ImageHeader { get }
    /// Reads the rest of the file and returns its ancillary information. The
    /// image is valid only when this returns.
    func finish() throws -> ImageMetadata
    /// The ancillary information the file gave before its first row (for PNG
    /// the chunks before the image data: the colour profile, EXIF as phones
    /// write it): what decides, before rendering, how the pixels are treated.
    /// ``finish()`` gives the whole of it.
    var leadingMetadata: ImageMetadata { get }
}

extension ImageReader {
    public var width: Int { header.width }
    public var height: Int { header.height }
    public var depth: PixelBuffer.Depth { header.depth }
}
