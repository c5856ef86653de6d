/// One ancillary chunk of a PNG, raw: its type, its data (CRC already
/// checked), and where it stands relative to PLTE and the image data.
public struct PNGChunk: Sendable, Equatable {
    /// Where a chunk stands in the stream (PNG spec §5.6 ordering).
    public enum Placement: Int, Sendable, Equatable {
        /// After IHDR, before PLTE (where colour chunks must be).
        case beforePalette = 1
        /// After PLTE, before the image data.
        case beforeImageData = 2
        /// After the image data, before IEND.
        case afterImageData = 8
    }

    /// The four-letter chunk type, e.g. "iCCP".
    public var type: String
    /// The chunk's data, without length, type or CRC.
    public var data: [UInt8]
    /// Where it stood in the source (and is written in the output).
    public var placement: Placement

    /// A chunk.
    public init(type: String, data: [UInt8], placement: Placement) {
        self.type = type
        self.data = data
        self.placement = placement
    }

    /// Whether the type's fourth letter is lowercase: PNG's "safe to copy"
    /// bit (§5.4), which says an editor that changed the image may keep it.
    public var isSafeToCopy: Bool { type.utf8.count == 4 && type.utf8.last! & 0x20 != 0 }
}
