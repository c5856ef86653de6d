import Color
import ImageCore

/// Rows on their way to the encoder, converted into the output's colour
/// profile first (`--profile`, or sRGB for a profile `--keep` drops): the
/// conversion streams with the rows, so it holds no image (SPEC §8).
///
/// Before (`19a16e2`), a converted image was taken whole in float-free
/// canonical form and converted at once: its rows plus the writer's held
/// copy, for every image with a Display P3 or Adobe RGB profile.
final class ConvertingSink: RowSink {
    private let writer: any ImageWriter
    private let conversion: RowConversion

    init(writer: any ImageWriter, conversion: RowConversion) {
        self.writer = writer
        self.conversion = conversion
    }

    var width: Int { writer.width }
    var height: Int { writer.height }
    var depth: PixelBuffer.Depth { writer.depth }

    func write(_ rows: Range<Int>, _ fill: (UnsafeMutableRawPointer) throws -> Void) throws {
        try writer.write(rows) { pixels in
            try fill(pixels)
            conversion.apply(pixels, count: rows.count * width)
        }
    }
}
