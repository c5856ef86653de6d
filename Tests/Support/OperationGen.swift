import PropertyBased
import Render

/// Generators of operation lists for the property tests: every operation of
/// SPEC §4.2 with parameters that are mostly ordinary and often hostile (range
/// ends and just past them, 0, NaN, ±∞, 1e308, values past `Int32`), so that
/// both the refusals and the renders are exercised.
public enum OperationGen {
    /// Numbers chosen to sit on or past some parameter's edge.
    static let edges: [Double] = [0, 1, -1, 0.001, 0.01, 0.5, 2, 64, 65, 100, 101, 1000, 1001, 65536, 65537,
                                  2_147_483_647, 2_147_483_648, 3e9, 1e30, 1e308, -1e308, 1e-300,
                                  .nan, .infinity, -.infinity]

    /// A number: seven times in eight an ordinary one (inside most ranges), otherwise an edge.
    static let number = zip(Gen.int(in: 0...7), Gen.double(in: 0...8), Gen.element(of: edges))
        .map { (draw: (Int, Double, Double?)) -> Double in draw.0 == 0 ? draw.2 ?? 0 : draw.1 }

    /// `value` as an Int: rounded, NaN as 0, beyond Int's range as its ends (as a flag
    /// or JSON number that big would also be refused or clamped by the parser).
    static func integer(_ value: Double) -> Int {
        if value.isNaN { return 0 }
        if value >= 9.2e18 { return .max }
        if value <= -9.2e18 { return .min }
        return Int(value.rounded())
    }

    /// One operation from a kind and five numbers; `mark` is the watermark file.
    static func operation(kind: Int, _ v: [Double], mark: String) -> Render.Operation {
        let i = v.map(integer)
        switch kind {
        case 0: return .crop(Crop(x: i[0], y: i[1], width: i[2], height: i[3]))
        case 1: return .rotate(Rotate(degrees: [90, 180, 270, 45, 0, -90][abs(i[0] % 6)]))
        case 2: return .flip(Flip(axis: v[0] < 0 ? .h : .v))
        case 3:
            return .resize(Resize(width: v[4] < 8 ? i[0] : nil, height: v[4] > 2 ? i[1] : nil,
                                  fit: Resize.Fit.allCases[abs(i[2] % 3)], filter: Resize.Filter.allCases[abs(i[3] % 3)],
                                  upscale: v[4] > 5))
        case 4: return .adjust(Adjust(brightness: v[0] / 10, contrast: v[1], saturation: v[2], exposure: v[3], gamma: v[4]))
        case 5: return .blur(Blur(sigma: v[0]))
        case 6: return .sharpen(Sharpen(amount: v[0], sigma: v[1], threshold: v[2] / 10))
        case 7: return .grayscale
        default:
            return .watermark(Watermark(file: mark, position: Watermark.Position.allCases[abs(i[0] % 5)],
                                        opacity: v[1] / 10, margin: i[2], scale: v[3] / 10))
        }
    }

    /// Lists of 0 to `maxCount` operations in any order, watermarks drawing `mark`.
    public static func operations(maxCount: Int = 4, mark: String) -> Generator<[Render.Operation], some SendableSequenceType> {
        zip(Gen.int(in: 0...8), number.array(of: 5))
            .map { (draw: (Int, [Double])) -> Render.Operation in operation(kind: draw.0, draw.1, mark: mark) }
            .array(of: 0...maxCount)
    }
}
