import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec

/// Random images of every canonical format: 8 and 16 bits, with alpha and opaque.
enum TestImages {
    /// Single pixels, single rows and columns, odd sizes.
    static let sizes: [(width: Int, height: Int)] = [(1, 1), (1, 9), (11, 1), (13, 7), (37, 23)]

    /// Every format × every size, filled from `seed`.
    static func all(seed: UInt64) -> [PixelBuffer] {
        var generator = SeededGenerator(seed: seed)
        return [PixelBuffer.Depth.eight, .sixteen].flatMap { depth in
            [true, false].flatMap { alpha in
                sizes.map { image(width: $0.width, height: $0.height, depth: depth, alpha: alpha, using: &generator) }
            }
        }
    }

    /// Random samples; alpha at the maximum when `alpha` is false.
    static func image(width: Int, height: Int, depth: PixelBuffer.Depth, alpha: Bool,
                      using generator: inout SeededGenerator) -> PixelBuffer {
        var image = PixelBuffer(width: width, height: height, depth: depth)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<4 {
                    let value = c == 3 && !alpha ? depth.maxValue : Int.random(in: 0...depth.maxValue, using: &generator)
                    image.set(x, y, c, value)
                }
            }
        }
        return image
    }

    /// "8-bit RGBA 13×7".
    static func name(_ image: PixelBuffer) -> String {
        "\(image.depth.rawValue)-bit \(image.width)×\(image.height)"
    }
}

extension PixelBuffer {
    /// Sample `c` (0 R … 3 A) of pixel (x, y).
    func sample(_ x: Int, _ y: Int, _ c: Int) -> Int {
        let index = (y * width + x) * 4 + c
        return bytes.withUnsafeBytes { raw in
            depth == .eight ? Int(raw.load(fromByteOffset: index, as: UInt8.self))
                : Int(raw.load(fromByteOffset: 2 * index, as: UInt16.self))
        }
    }

    /// Sets sample `c` of pixel (x, y).
    mutating func set(_ x: Int, _ y: Int, _ c: Int, _ value: Int) {
        let index = (y * width + x) * 4 + c
        let depth = depth
        bytes.withUnsafeMutableBytes { raw in
            if depth == .eight {
                raw.storeBytes(of: UInt8(value), toByteOffset: index, as: UInt8.self)
            } else {
                raw.storeBytes(of: UInt16(value), toByteOffset: 2 * index, as: UInt16.self)
            }
        }
    }
}

extension PixelBuffer {
    /// True when some pixel is not fully opaque.
    var hasAlpha: Bool {
        (0..<(width * height)).contains { sample($0 % width, $0 / width, 3) != depth.maxValue }
    }
}
