import Foundation
import ImageCore
import PNGCodec

/// Float64 reference implementations of SPEC §4.2's operations, written from
/// their definitions (Sources/Render/Operations) independently of the kernels.
/// Images are straight-alpha RGBA in 0…1.
struct ReferenceImage {
    var width: Int
    var height: Int
    var pixels: [SIMD4<Double>]

    init(width: Int, height: Int, pixels: [SIMD4<Double>]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    init(_ image: PixelBuffer) {
        let scale = 1 / Double(image.depth.maxValue)
        width = image.width
        height = image.height
        pixels = (0..<(width * height)).map { i in
            SIMD4((0..<4).map { Double(image.sample(i % image.width, i / image.width, $0)) * scale })
        }
    }

    subscript(x: Int, y: Int) -> SIMD4<Double> {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }

    /// Integer samples at `depth`: round half up after clamping, as pack does.
    func samples(depth: PixelBuffer.Depth) -> [Int] {
        let scale = Double(depth.maxValue)
        return pixels.flatMap { p in (0..<4).map { Int((min(max(p[$0], 0), 1) * scale + 0.5).rounded(.down)) } }
    }

    static func generate(width: Int, height: Int, _ pixel: (Int, Int) -> SIMD4<Double>) -> ReferenceImage {
        var pixels: [SIMD4<Double>] = []
        for y in 0..<height { for x in 0..<width { pixels.append(pixel(x, y)) } }
        return ReferenceImage(width: width, height: height, pixels: pixels)
    }
}

enum Reference {
    static func premultiply(_ c: SIMD4<Double>) -> SIMD4<Double> { c * SIMD4(c.w, c.w, c.w, 1) }

    /// The colour divided by the alpha as filtered (overshoot and all), then both clamped to 0…1.
    static func unpremultiply(_ c: SIMD4<Double>) -> SIMD4<Double> {
        let a = c.w
        guard a >= 0.5 / 65535 else { return .zero }
        let color = (c / a).clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 1))
        return SIMD4(color.x, color.y, color.z, min(a, 1))
    }

    static func remap(_ image: ReferenceImage, width: Int, height: Int, _ source: (Int, Int) -> (Int, Int)) -> ReferenceImage {
        .generate(width: width, height: height) { x, y in let (sx, sy) = source(x, y); return image[sx, sy] }
    }

    static func adjust(_ image: ReferenceImage, brightness: Double = 0, contrast: Double = 1, saturation: Double = 1,
                       exposure: Double = 0, gamma: Double = 1) -> ReferenceImage {
        var out = image
        out.pixels = image.pixels.map { p in
            var c = SIMD3(p.x, p.y, p.z) * pow(2, exposure) + brightness
            c = (c - 0.5) * contrast + 0.5
            let y = (c * SIMD3(0.2126, 0.7152, 0.0722)).sum()
            c = y + (c - y) * saturation
            if gamma != 1 {
                c = c.clamped(lowerBound: .zero, upperBound: .one)
                c = SIMD3(pow(c.x, 1 / gamma), pow(c.y, 1 / gamma), pow(c.z, 1 / gamma))
            }
            return SIMD4(c.clamped(lowerBound: .zero, upperBound: .one), p.w)
        }
        return out
    }

    enum Filter { case lanczos3, bilinear, nearest }

    static func lanczos3(_ x: Double) -> Double {
        let x = abs(x)
        if x < 1e-12 { return 1 }
        if x >= 3 { return 0 }
        return 3 * sin(.pi * x) * sin(.pi * x / 3) / (.pi * .pi * x * x)
    }

    /// Taps of output index i along an axis of n → m pixels, centers at (i + ½)·n/m (libvips / ImageMagick).
    /// The tap range uses float32 arithmetic, as the kernels document; weights are float64.
    static func taps(_ i: Int, from n: Int, to m: Int, filter: Filter) -> [(Int, Double)] {
        let scale = Double(n) / Double(m)
        let fs = max(scale, 1)
        let center = (Float(i) + 0.5) * Float(scale)
        if filter == .nearest { return [(min(Int(center), n - 1), 1)] }
        let support = Float((filter == .lanczos3 ? 3 : 1) * fs)
        let start = max(Int(center - support + 0.5), 0), stop = min(Int(center + support + 0.5), n)
        let raw = (start..<stop).map { j -> (Int, Double) in
            let d = (Double(j) + 0.5 - Double(center)) / fs
            return (j, filter == .lanczos3 ? lanczos3(d) : max(0, 1 - abs(d)))
        }
        let total = raw.map(\.1).reduce(0, +)
        return raw.map { ($0.0, $0.1 / total) }
    }

    /// Separable resize on premultiplied alpha, horizontal then vertical, unpremultiplied and clamped.
    /// A resize to the same size changes nothing (SPEC §4.1: no value changes unasked), so a
    /// transparent pixel keeps its colour there, where premultiplying would have lost it.
    static func resize(_ image: ReferenceImage, width: Int, height: Int, filter: Filter) -> ReferenceImage {
        guard width != image.width || height != image.height else { return image }
        var current = image
        current.pixels = current.pixels.map(premultiply)
        if width != image.width {
            let source = current
            current = .generate(width: width, height: image.height) { x, y in
                taps(x, from: source.width, to: width, filter: filter).reduce(.zero) { $0 + $1.1 * source[$1.0, y] }
            }
        }
        if height != image.height {
            let source = current
            current = .generate(width: width, height: height) { x, y in
                taps(y, from: source.height, to: height, filter: filter).reduce(.zero) { $0 + $1.1 * source[x, $1.0] }
            }
        }
        current.pixels = current.pixels.map(unpremultiply)
        return current
    }

    /// The separable Gaussian of the premultiplied image (premultiplied result), edges repeated.
    static func gaussian(_ image: ReferenceImage, sigma: Double) -> ReferenceImage {
        let radius = max(1, Int((3 * sigma).rounded(.up)))
        let raw = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let weights = raw.map { $0 / raw.reduce(0, +) }
        var premultiplied = image
        premultiplied.pixels = image.pixels.map(premultiply)
        let rows = ReferenceImage.generate(width: image.width, height: image.height) { x, y in
            (-radius...radius).reduce(.zero) { $0 + weights[$1 + radius] * premultiplied[min(max(x + $1, 0), image.width - 1), y] }
        }
        return .generate(width: image.width, height: image.height) { x, y in
            (-radius...radius).reduce(.zero) { $0 + weights[$1 + radius] * rows[x, min(max(y + $1, 0), image.height - 1)] }
        }
    }

    static func blur(_ image: ReferenceImage, sigma: Double) -> ReferenceImage {
        var out = gaussian(image, sigma: sigma)
        out.pixels = out.pixels.map(unpremultiply)
        return out
    }

    static func sharpen(_ image: ReferenceImage, amount: Double, sigma: Double, threshold: Double) -> ReferenceImage {
        let blurred = gaussian(image, sigma: sigma)
        var out = image
        for i in out.pixels.indices {
            let o = image.pixels[i]
            guard o.w >= 0.5 / 65535 else {
                out.pixels[i] = .zero
                continue
            }
            // Straight color against the alpha-weighted blur.
            let b = blurred.pixels[i].w >= 0.5 / 65535 ? unpremultiply(blurred.pixels[i]) : o
            var c = o
            for k in 0..<3 {
                let difference = o[k] - b[k]
                let weight = threshold > 0 ? min(1, max(0, abs(difference) / threshold - 1)) : 1
                c[k] = min(1, max(0, o[k] + amount * difference * weight))
            }
            out.pixels[i] = c
        }
        return out
    }

    /// `mark` (already sized) over `image` at `origin`, alpha × opacity.
    static func composite(_ image: ReferenceImage, mark: ReferenceImage, origin: (Int, Int), opacity: Double) -> ReferenceImage {
        var out = image
        for my in 0..<mark.height {
            for mx in 0..<mark.width {
                let x = origin.0 + mx, y = origin.1 + my
                guard x >= 0, y >= 0, x < image.width, y < image.height else { continue }
                let m = mark[mx, my], b = image[x, y]
                let am = m.w * opacity, keep = b.w * (1 - am), a = am + keep
                var c = a > 0 ? (m * am + b * keep) / a : .zero
                c = c.clamped(lowerBound: .zero, upperBound: .one)
                c.w = a
                out[x, y] = c
            }
        }
        return out
    }
}
