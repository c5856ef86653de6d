public import ImageCore

/// Images that allow one exact smaller form each (SPEC §4.1), and their twins
/// with one sample off that must not get it: the codec's and the CLI's tests
/// of the reductions.
public enum ReducibleImages {
    /// One reduction's case.
    public struct Case: Sendable {
        /// What it shows ("16-bit samples 257·k stored at 8").
        public var name: String
        /// An image the reduction applies to.
        public var image: PixelBuffer
        /// The same image with one sample off: the reduction must not apply.
        public var twin: PixelBuffer
        /// The image's output: colour type (as in IHDR) and bit depth, and whether it has PLTE and tRNS.
        public var reduced: Form
        /// The twin's output.
        public var kept: Form
    }

    /// What IHDR, PLTE and tRNS say of an output.
    public struct Form: Sendable, Equatable, CustomStringConvertible {
        public var colorType: Int
        public var bitDepth: Int
        public var palette: Bool = false
        public var transparency: Bool = false

        public init(colorType: Int, bitDepth: Int, palette: Bool = false, transparency: Bool = false) {
            self.colorType = colorType
            self.bitDepth = bitDepth
            self.palette = palette
            self.transparency = transparency
        }

        /// The form of an encoded PNG.
        public init(of png: [UInt8]) {
            let types = Set(PNGBytes.chunks(of: png).map(\.type))
            self.init(colorType: Int(png[25]), bitDepth: Int(png[24]), palette: types.contains("PLTE"),
                      transparency: types.contains("tRNS"))
        }

        public var description: String {
            "colour type \(colorType), \(bitDepth) bits\(palette ? ", PLTE" : "")\(transparency ? ", tRNS" : "")"
        }
    }

    /// Every case: 16→8 bits, RGB→gray, opaque alpha dropped, a tRNS colour
    /// key for alpha, gray at 1, 2 and 4 bits, palettes at 1, 2, 4 and 8 bits.
    public static var all: [Case] {
        let w = 24, h = 20
        // 24×20 pixels from their (x, y); 480 colours where they differ: no palette.
        func image(_ depth: PixelBuffer.Depth, _ pixel: (Int, Int) -> [Int]) -> PixelBuffer {
            PixelBuffer(width: w, height: h, depth: depth,
                        samples: (0..<h).flatMap { y in (0..<w).flatMap { x in pixel(x, y) } })
        }
        func off(_ image: PixelBuffer, sample: Int, by delta: Int = 1) -> PixelBuffer {
            var samples = image.samples16.map(Int.init)
            if image.depth == .eight { samples = samples.map { $0 / 257 } }
            samples[sample] += samples[sample] + delta > image.depth.maxValue ? -delta : delta
            return PixelBuffer(width: image.width, height: image.height, depth: image.depth, samples: samples)
        }
        func colour(_ x: Int, _ y: Int) -> [Int] { [x * 10, y * 12, (x * y) % 255] }
        let sixteen = image(.sixteen) { x, y in colour(x, y).map { $0 * 257 } + [65535] }
        let gray16 = image(.sixteen) { x, y in let v = (x * 2731 + y * 977) % 65536; return [v, v, v, 65535] }
        let rgba16 = image(.sixteen) { x, y in [x * 2731 + 5, y * 3001 + 7, x * y * 97 + 3, 65535] }
        // Transparent pixels are all (0, 0, 0, 0); no opaque pixel is black.
        let keyed = image(.eight) { x, y in (x + y) % 5 == 0 ? [0, 0, 0, 0] : colour(x, y).map { $0 + 1 } + [255] }
        var keyTwin = keyed.samples16.map { Int($0 / 257) }
        keyTwin[4 * 1 ..< 4 * 2] = [0, 0, 0, 255]  // pixel (1, 0), opaque black
        // Gray levels a multiple of `step` apart, as noise.
        func grayLevels(_ step: Int) -> PixelBuffer {
            var generator = SeededGenerator(seed: UInt64(step))
            return image(.eight) { _, _ in let v = Int.random(in: 0...(255 / step), using: &generator) * step; return [v, v, v, 255] }
        }
        // A palette of `count` colours (the first `translucent` half transparent), spread as noise.
        func indexed(_ count: Int, translucent: Int, depth: PixelBuffer.Depth) -> PixelBuffer {
            var generator = SeededGenerator(seed: UInt64(count))
            let scale = depth == .sixteen ? 257 : 1
            return PixelBuffer(width: 64, height: 64, depth: depth, samples: (0..<4096).flatMap { i in
                let c = i < count ? i : Int.random(in: 0..<count, using: &generator)
                return [c, 255 - c, (c * 7) % 256, c < translucent ? 128 : 255].map { $0 * scale }
            })
        }
        let palette256 = indexed(256, translucent: 4, depth: .eight)
        var extra = palette256.samples16.map { Int($0 / 257) }
        extra[4 * 300 ..< 4 * 301] = [1, 2, 3, 255]  // a 257th colour
        return [
            Case(name: "16-bit samples 257·k stored at 8", image: sixteen, twin: off(sixteen, sample: 0),
                 reduced: Form(colorType: 2, bitDepth: 8), kept: Form(colorType: 2, bitDepth: 16)),
            Case(name: "RGB with r = g = b stored as gray", image: gray16, twin: off(gray16, sample: 4 * 50 + 1),
                 reduced: Form(colorType: 0, bitDepth: 16), kept: Form(colorType: 2, bitDepth: 16)),
            Case(name: "opaque alpha dropped", image: rgba16, twin: off(rgba16, sample: 4 * 70 + 3),
                 reduced: Form(colorType: 2, bitDepth: 16), kept: Form(colorType: 6, bitDepth: 16)),
            Case(name: "one transparent colour as a tRNS key", image: keyed,
                 twin: PixelBuffer(width: w, height: h, depth: .eight, samples: keyTwin),
                 reduced: Form(colorType: 2, bitDepth: 8, transparency: true), kept: Form(colorType: 6, bitDepth: 8)),
            Case(name: "gray at 1 bit", image: grayLevels(255), twin: off(grayLevels(255), sample: 4 * 9, by: 17),
                 reduced: Form(colorType: 0, bitDepth: 1), kept: Form(colorType: 3, bitDepth: 2, palette: true)),
            Case(name: "gray at 2 bits", image: grayLevels(85), twin: off(grayLevels(85), sample: 4 * 9, by: 17),
                 reduced: Form(colorType: 0, bitDepth: 2), kept: Form(colorType: 3, bitDepth: 4, palette: true)),
            Case(name: "gray at 4 bits", image: grayLevels(17), twin: off(grayLevels(17), sample: 4 * 9, by: 1),
                 reduced: Form(colorType: 0, bitDepth: 4), kept: Form(colorType: 3, bitDepth: 8, palette: true)),
            Case(name: "palette of 2 at 1 bit (16-bit rows)", image: indexed(2, translucent: 0, depth: .sixteen),
                 twin: off(indexed(2, translucent: 0, depth: .sixteen), sample: 4 * 9 + 2),
                 reduced: Form(colorType: 3, bitDepth: 1, palette: true), kept: Form(colorType: 2, bitDepth: 16)),
            Case(name: "palette of 4 at 2 bits, tRNS", image: indexed(4, translucent: 1, depth: .eight),
                 twin: off(indexed(4, translucent: 1, depth: .eight), sample: 4 * 9 + 2),
                 reduced: Form(colorType: 3, bitDepth: 2, palette: true, transparency: true),
                 kept: Form(colorType: 3, bitDepth: 4, palette: true, transparency: true)),
            Case(name: "palette of 16 at 4 bits", image: indexed(16, translucent: 0, depth: .eight),
                 twin: off(indexed(16, translucent: 0, depth: .eight), sample: 4 * 9 + 2),
                 reduced: Form(colorType: 3, bitDepth: 4, palette: true),
                 kept: Form(colorType: 3, bitDepth: 8, palette: true)),
            Case(name: "palette of 256 at 8 bits, tRNS", image: palette256,
                 twin: PixelBuffer(width: 64, height: 64, depth: .eight, samples: extra),
                 reduced: Form(colorType: 3, bitDepth: 8, palette: true, transparency: true),
                 kept: Form(colorType: 6, bitDepth: 8)),
        ]
    }
}
