import Foundation

extension Render.Operation {
    /// A few words for people, as a progress display's subtitle shows them:
    /// "fit 800×? inside", "saturation 1.2", "sharpen 0.5", "sharpen 1,2", "watermark br".
    /// Settings left at their neutral values are not mentioned.
    public var summary: String {
        switch self {
        case .crop(let c): return "crop \(c.width)×\(c.height)+\(c.x)+\(c.y)"
        case .rotate(let r): return "rotate \(r.degrees)°"
        case .flip(let f): return "flip \(f.axis.rawValue)"
        case .resize(let r):
            let box = "\(r.width.map(String.init) ?? "?")×\(r.height.map(String.init) ?? "?")"
            let verb = r.fit == .inside ? "fit" : r.fit.rawValue
            return "\(verb) \(box)" + (r.upscale ? " upscale" : "") + (r.filter == .lanczos3 ? "" : " \(r.filter.rawValue)")
        case .adjust(let a):
            let parts = [("brightness", a.brightness, 0.0), ("contrast", a.contrast, 1), ("saturation", a.saturation, 1),
                         ("exposure", a.exposure, 0), ("gamma", a.gamma, 1)]
                .filter { $0.1 != $0.2 }.map { "\($0.0) \(Self.number($0.1))" }
            return parts.isEmpty ? "adjust" : parts.joined(separator: " ")
        case .blur(let b): return "blur \(Self.number(b.sigma))"
        case .sharpen(let s):
            // As `--sharpen` takes it, AMOUNT[,SIGMA[,THRESHOLD]]: `--sharpen 1,2` was shown "sharpen 1".
            let given = s.threshold != 0 ? [s.amount, s.sigma, s.threshold] : s.sigma != 1 ? [s.amount, s.sigma] : [s.amount]
            return "sharpen " + given.map(Self.number).joined(separator: ",")
        case .grayscale: return "grayscale"
        case .watermark(let w): return "watermark \(w.position.rawValue)"
        }
    }

    /// `1.2`, `8` (no trailing zeros).
    private static func number(_ value: Double) -> String {
        ParameterRange<Double>.format(value)
    }
}
