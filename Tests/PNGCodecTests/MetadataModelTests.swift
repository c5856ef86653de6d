import Foundation
import ImageCore
import KilnTestSupport
@testable import PNGCodec
import Testing

/// The format-neutral metadata model (`ImageMetadata`) as the PNG codec reads
/// and writes it: fields read from their chunks, written back from the fields
/// when no carried chunk covers them (what a colour conversion or another
/// format's source needs), carried chunks kept byte for byte otherwise.
@Suite struct MetadataModelTests {
    /// A TIFF stream (big-endian) whose first IFD holds orientation 6 (rotate 90° clockwise to view).
    static let exifOrientation6: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1,
                                            0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]

    @Test func fieldsAreReadFromTheirChunks() throws {
        let reader = try PNGRowReader(bytes: try MetadataTests.taggedImage(), limits: .init())
        _ = try reader.readAll()
        let metadata = try reader.finish()
        #expect(metadata.colorProfile?.name == "Display P3")
        #expect(metadata.colorProfile?.colorSpace == "RGB ")
        #expect(metadata.exif == Array("MM\0*\0\0\0\u{8}\0\0".utf8))
        #expect(metadata.resolution == Resolution(x: 2835, y: 2835))
        #expect(metadata.carried?.format == .png)
        #expect(metadata.carried?.blocks.map(\.type) == ["iCCP", "eXIf", "pHYs", "prVT", "prVt"])
    }

    @Test func fieldsNoCarriedChunkCoversAreWrittenAndReadBack() throws {
        let image = PixelBuffer(width: 3, height: 2, depth: .eight, bytes: (0..<24).map { UInt8($0 * 10) })
        let profile = ColorProfile(name: "Test profile", bytes: PNGBytes.iccHeader(space: "RGB ") + [UInt8](repeating: 7, count: 40))
        let source = ImageMetadata(colorProfile: profile, exif: Self.exifOrientation6, xmp: Array("<x:xmpmeta/>".utf8),
                                   text: [TextEntry(keyword: "Title", value: "Kiln"), TextEntry(keyword: "Comment", value: "Ünïcode ✓")],
                                   resolution: Resolution(x: 3780, y: 3780))
        #expect(source.orientation == 6)
        let output = MemoryOutput()
        let writer = try PNGWriter(width: 3, height: 2, depth: .eight, settings: WriteSettings(), output: output)
        try writer.write(image)
        _ = try writer.finish(metadata: source)
        let png = output.bytes
        #expect(PNGBytes.chunks(of: png).map(\.type) == ["IHDR", "iCCP", "eXIf", "pHYs", "tEXt", "iTXt", "iTXt", "IDAT", "IEND"])
        let reader = try PNGRowReader(bytes: png, limits: .init())
        #expect(try reader.readAll() == image)
        var read = try reader.finish()
        #expect(read.carried?.blocks.count == 6)
        read.carried = nil
        #expect(read == source)
    }

    @Test func aReplacedProfileReplacesEveryColourChunk() throws {
        let (_, pixels, chunks) = try PNGDecoder.decodeWithMetadata(try MetadataTests.taggedImage())
        var metadata = chunks.imageMetadata
        metadata.replaceColorProfile(with: ColorProfile(name: "sRGB", bytes: PNGBytes.iccHeader(space: "RGB ")))
        let output = MemoryOutput()
        let writer = try PNGWriter(width: pixels.width, height: pixels.height, depth: pixels.depth, settings: WriteSettings(),
                                   output: output)
        try writer.write(pixels)
        _ = try writer.finish(metadata: metadata)
        let png = output.bytes
        let iccp = PNGBytes.data(of: "iCCP", in: png)
        #expect(iccp.count == 1 && iccp.first.map { Array($0.prefix(5)) } == Array("sRGB\0".utf8))
        #expect(PNGBytes.data(of: "eXIf", in: png).count == 1, "the other carried chunks stay")
    }
}
