public import ImageCore

/// Random canonical images of every format, for agreement tests.
public enum RandomImages {
    /// Sizes that stress the dispatch edges: single pixels, single rows and
    /// columns, odd sizes around the 256-wide workgroup, and one image large
    /// enough for the CPU kernels' multi-core path.
    public static let sizes: [(width: Int, height: Int)] = [
        (1, 1), (1, 37), (41, 1), (17, 13), (255, 1), (257, 3), (301, 263),
    ]

    /// Every canonical format, every size, filled from `seed`.
    public static func all(seed: UInt64) -> [PixelBuffer] {
        var generator = SeededGenerator(seed: seed)
        return [PixelBuffer.Depth.eight, .sixteen].flatMap { depth in
            sizes.map { size in image(width: size.width, height: size.height, depth: depth, using: &generator) }
        }
    }

    /// Random samples, including the extremes 0 and maxValue.
    public static func image(width: Int, height: Int, depth: PixelBuffer.Depth,
                      using generator: inout SeededGenerator) -> PixelBuffer {
        var bytes = (0..<(width * height * 4 * depth.bytesPerSample)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        if bytes.count >= 8 {
            bytes.replaceSubrange(0..<8, with: [0, 0, 0, 0, 255, 255, 255, 255])
        }
        return PixelBuffer(width: width, height: height, depth: depth, bytes: bytes)
    }
}
