import Color
import ImageCore

/// Rows on their way to the encoder, converted into the output's colour
/// profile first (`--profile`, or sRGB for a profile `--keep` drops): the
/// conversion streams with the rows, so it holds no image (SPEC §8).
///
/// Before (`19a16e2`), a converted image was taken whole (its canonical
/// rows) and converted at once, and the writer then held a copy: the
/// 16000×9000 photo to Display P3 peaked at 1.7 GB (43 MB since, the same
/// pixels), and so did any image whose Display P3 or Adobe RGB profile
/// `--keep` dropped.
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
