import ImageCore

extension PNGMetadata {
    /// The colour the source's bKGD names, 8 bits each, where it is kept (`other`) and says one exactly at 8 bits
    /// (not a palette source's); nil otherwise.
    func backgroundRGB8(keep: MetadataSelection) -> [UInt8]? {
        guard keep.contains(.other), let chunk = chunks.first(where: { $0.type == "bKGD" }),
              let rgb = Self.background(chunk.data, from: sourceColorType, depth: sourceBitDepth, to: .rgb, depth: 8,
                                        palette: []) else { return nil }
        return [rgb[1], rgb[3], rgb[5]]
    }

    /// The source's bKGD (`data`) in the form an output of `colorType` at `bitDepth` stores it, where it says the very
    /// colour: a gray or RGB value rescaled to the output's depth where that is exact, an RGB one made gray where it is
    /// neutral, or, for a palette output, the index of the first `palette` entry (RGBA, 8 bits each) of its colour.
    /// Nil where it cannot be said exactly, or the source is a palette (its index names an entry of a palette not kept).
    ///
    /// Before, bKGD was kept only in the source's own colour type and depth, so a chunk ImageMagick writes in every
    /// PNG pinned the output to it: a two-colour RGB checkerboard stayed 24-bit RGB, 524 bytes, where 4-bit gray
    /// took 202 (a reduction is made only when it keeps every chunk the direct form keeps).
    static func background(_ data: [UInt8], from source: PNGColorType, depth sourceDepth: Int,
                           to colorType: PNGColorType, depth: Int, palette: [UInt8]) -> [UInt8]? {
        let sourceMax = (1 << sourceDepth) - 1
        guard sourceDepth >= 1, sourceDepth <= 16 else { return nil }
        let values: [Int]
        switch source {
        case .gray, .grayAlpha:
            guard data.count == 2 else { return nil }
            values = [Int](repeating: Int(data[0]) << 8 | Int(data[1]), count: 3)
        case .rgb, .rgba:
            guard data.count == 6 else { return nil }
            values = (0..<3).map { Int(data[2 * $0]) << 8 | Int(data[2 * $0 + 1]) }
        case .palette:
            return nil
        }
        guard values.allSatisfy({ $0 <= sourceMax }) else { return nil }
        /// `value` at `bits`, where it is a whole number there.
        func rescaled(_ value: Int, to bits: Int) -> Int? {
            let product = value * ((1 << bits) - 1)
            return product % sourceMax == 0 ? product / sourceMax : nil
        }
        func bigEndian(_ value: Int) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
        switch colorType {
        case .gray, .grayAlpha:
            guard values[0] == values[1], values[1] == values[2], let gray = rescaled(values[0], to: depth) else { return nil }
            return bigEndian(gray)
        case .rgb, .rgba:
            let rgb = values.compactMap { rescaled($0, to: depth) }
            return rgb.count == 3 ? rgb.flatMap(bigEndian) : nil
        case .palette:
            let rgb = values.compactMap { rescaled($0, to: 8) }
            guard rgb.count == 3 else { return nil }
            let index = stride(from: 0, to: palette.count - 3, by: 4).first {
                palette[$0] == UInt8(rgb[0]) && palette[$0 + 1] == UInt8(rgb[1]) && palette[$0 + 2] == UInt8(rgb[2])
            }
            return index.map { [UInt8($0 / 4)] }
        }
    }
}
