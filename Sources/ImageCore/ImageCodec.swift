/// One file format's reader and writer (SPEC §1): what a codec target
/// implements, and what the export layer picks by content from its registry.
/// Adding a format is adding a codec and one registry line.
public protocol ImageCodec: Sendable {
    /// The format it reads and writes.
    var format: ImageFormat { get }
    /// Bytes of a file's start that ``recognizes(_:)`` needs at most.
    var signatureLength: Int { get }
    /// Whether a file starting with `prefix` (its first ``signatureLength``
    /// bytes, fewer for a shorter file) is in this format.
    func recognizes(_ prefix: ArraySlice<UInt8>) -> Bool
    /// Opens the file at `path`, streaming it, and reads its header; checks
    /// `limits` before anything image-sized exists.
    func reader(contentsOf path: String, limits: DecodingLimits) throws -> any ImageReader
    /// As ``reader(contentsOf:limits:)``, over a whole file in memory.
    func reader(bytes: [UInt8], limits: DecodingLimits) throws -> any ImageReader
    /// Reads only the header of the file at `path`, whatever its size.
    func header(contentsOf path: String) throws -> ImageHeader
    /// About the most bytes a writer of a `width × height` image at `depth` holds.
    func writerBytes(width: Int, height: Int, depth: PixelBuffer.Depth) -> Int
    /// A writer of a `width × height` image at `depth`.
    func writer(width: Int, height: Int, depth: PixelBuffer.Depth, settings: WriteSettings) throws -> any ImageWriter
    /// Whether two files of this format are the same work: the same image and
    /// blocks, their time stamps aside (two exports made at different times), or,
    /// with `tolerance` above 0, the same blocks and samples that differ by at
    /// most `tolerance` per 8-bit sample (`256 × tolerance` per 16-bit one): the
    /// same work rendered by another backend.
    func sameWork(_ a: [UInt8], _ b: [UInt8], tolerance: Int) -> Bool
}

/// How an output is written.
public struct WriteSettings: Sendable, Equatable {
    /// Compression level, 0 (none) … 9 (smallest); PNG's zlib level.
    public var level: Int
    /// The kinds of ancillary information kept.
    public var keep: MetadataSelection
    /// When the output was made (seconds since 1970, UTC): its time stamp,
    /// written when the source had one and `keep` has `.time`.
    public var time: Int64

    /// Settings; level 6, everything kept, time 0 by default.
    public init(level: Int = 6, keep: MetadataSelection = .all, time: Int64 = 0) {
        self.level = level
        self.keep = keep
        self.time = time
    }
}

/// An encoder taking rows (``RowSink``) and making one file.
public protocol ImageWriter: RowSink {
    /// Completes the file once every row is written, with the blocks of
    /// `metadata` that the settings keep and that still hold for the output
    /// (the metadata is complete only once a reader has read its whole file).
    /// - Throws: the codec's error.
    func finish(metadata: ImageMetadata?) throws -> EncodedImage
    /// As ``finish(metadata:)``, telling `progress` how much of the encoding
    /// is done as it goes (a writer that encodes as rows arrive reports at once).
    func finish(metadata: ImageMetadata?, progress: EncodeProgress?) throws -> EncodedImage
}

extension ImageWriter {
    /// Encodes in one step, then reports it complete.
    public func finish(metadata: ImageMetadata?, progress: EncodeProgress?) throws -> EncodedImage {
        let encoded = try finish(metadata: metadata)
        progress?.report(1)
        return encoded
    }
}

/// A complete file and the ancillary information it left out.
public struct EncodedImage: Sendable {
    /// The file's bytes.
    public var bytes: [UInt8]
    /// What the output left out, with the reason.
    public var dropped: [DroppedMetadata]

    /// An encoded image.
    public init(bytes: [UInt8], dropped: [DroppedMetadata]) {
        self.bytes = bytes
        self.dropped = dropped
    }
}
