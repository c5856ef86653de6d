import CPNG
import KilnTestSupport
import Testing

/// The fast decoder's unfiltering (SSE2, a pixel at a time) against the
/// PNG specification's definitions written byte by byte: every filter, every
/// bpp 1-8, rows shorter than a register and of odd lengths, on bytes of full
/// range and on bytes of a narrow one (where Paeth's distances tie).
@Suite struct UnfilterTests {
    /// The specification's reconstruction of `row` (filtered) over `previous` (unfiltered).
    static func reference(_ filter: UInt8, _ row: [UInt8], _ previous: [UInt8], bpp: Int) -> [UInt8] {
        var out = row
        for i in out.indices {
            let a = i >= bpp ? Int(out[i - bpp]) : 0, b = Int(previous[i]), c = i >= bpp ? Int(previous[i - bpp]) : 0
            let predictor: Int
            switch filter {
            case 0: predictor = 0
            case 1: predictor = a
            case 2: predictor = b
            case 3: predictor = (a + b) / 2
            default:
                let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
            }
            out[i] = UInt8(truncatingIfNeeded: Int(row[i]) + predictor)
        }
        return out
    }

    @Test(arguments: 1...8) func everyFilterMatchesTheSpecification(bpp: Int) {
        var generator = SeededGenerator(seed: UInt64(bpp))
        for pixels in [1, 2, 3, 5, 7, 15, 16, 17, 31, 33, 100, 1001] {
            for range in [UInt8(255), 3] {
                let count = pixels * bpp
                let previous = (0..<count).map { _ in UInt8.random(in: 0...range, using: &generator) }
                let row = (0..<count).map { _ in UInt8.random(in: 0...range, using: &generator) }
                for filter in UInt8(0)...4 {
                    var fast = row
                    let ok = fast.withUnsafeMutableBufferPointer { cpng_unfilter_row(filter, $0.baseAddress, previous, count, bpp) }
                    #expect(ok == 1)
                    #expect(fast == Self.reference(filter, row, previous, bpp: bpp),
                            "filter \(filter), bpp \(bpp), \(pixels) pixels, bytes 0...\(range)")
                }
            }
        }
    }

    @Test func anUnknownFilterIsRefused() {
        var row: [UInt8] = [1, 2, 3]
        #expect(row.withUnsafeMutableBufferPointer { cpng_unfilter_row(5, $0.baseAddress, [0, 0, 0], 3, 3) } == 0)
    }
}
