/// A decoder of one image, row by row (SPEC §8): what every codec's reader
/// implements and what the render stage pulls from. Rows come forward only;
/// ``finish()`` reads the rest of the file, so an image is accepted only when
/// the whole file is valid, whatever part of it the operations needed.
///
/// Not thread-safe: one reader is used by one thread at a time.
public protocol ImageReader: AnyObject, RowSource {
    /// What the file declares, known before the first row.
    var header: ImageHeader { get }
    /// The ancillary information the file gives before its first row (PNG: the
    /// chunks before IDAT), read with the header: what the render may depend
    /// on (the EXIF orientation, SPEC §4.1; a profile about to be dropped).
    /// ``finish()`` returns the whole.
    var leadingMetadata: ImageMetadata { get }
    /// Reads the rest of the file and returns its ancillary information. The
    /// image is valid only when this returns.
    func finish() throws -> ImageMetadata
    /// Decodes a smaller image where the format does it for less work than the
    /// whole (JPEG's DCT scaling by 1/2, 1/4, 1/8), never below `width × height`
    /// (the codec may keep more, for quality). Before the first read; ``header`` then gives
    /// the reduced size. Returns whether it shrank.
    func reduce(toAtLeast width: Int, _ height: Int) throws -> Bool
    /// Has `progress` told the fraction (0…1) of the file read where the reader reads it whole before its first
    /// row (``ImageHeader/readsFileFirst``), on the thread reading. Before the first read.
    func observeFirstRead(_ progress: @escaping (Double) -> Void)
    /// Gives back what decoding holds (a progressive JPEG's coefficients, a WebP's picture) where the image is
    /// to be read again from a reader of its own (the CPU taking over from a failed device): no row comes after.
    /// ``header`` and ``leadingMetadata`` stay.
    func abandon()
}

extension ImageReader {
    /// None, for a reader that keeps nothing before the pixels.
    public var leadingMetadata: ImageMetadata { ImageMetadata() }
    /// A format that cannot shrink on load decodes whole.
    public func reduce(toAtLeast width: Int, _ height: Int) throws -> Bool { false }
    /// A reader whose first row comes without reading the file whole says nothing.
    public func observeFirstRead(_ progress: @escaping (Double) -> Void) {}
    /// A reader that holds nothing image-sized has nothing to give back.
    public func abandon() {}
    public var width: Int { header.width }
    public var height: Int { header.height }
    public var depth: PixelBuffer.Depth { header.depth }
}
