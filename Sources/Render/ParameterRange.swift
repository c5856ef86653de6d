import Foundation

/// The values one numeric parameter accepts. Each operation checks its
/// parameters against these, and `kiln --help` and the README state them, so
/// a range is written once. NaN and ±∞ lie in no range.
public struct ParameterRange<Value: Comparable & Sendable>: Sendable {
    /// The accepted values, ends included.
    public let bounds: ClosedRange<Value>

    /// A range with both ends included.
    public init(_ bounds: ClosedRange<Value>) {
        self.bounds = bounds
    }

    /// Throws `RenderError.invalidParameter` for `key` of `operation` unless `value` lies within the bounds.
    func check(_ value: Value, _ operation: String, _ key: String) throws(RenderError) {
        guard bounds.contains(value) else {
            throw .invalidParameter(InvalidParameter(operation: operation, key: key,
                                                     problem: "must be \(text), not \(Self.format(value))"))
        }
    }

    /// The range as help texts show it: "0…2147483647", "0.01…1000".
    public var text: String { "\(Self.format(bounds.lowerBound))…\(Self.format(bounds.upperBound))" }

    /// `8`, `0.01`, `3000000000`, `1e+30`, `nan`: integers in full, other numbers in `%g`.
    static func format(_ value: Value) -> String {
        switch value {
        case let double as Double:
            if let whole = Int(exactly: double), abs(whole) < 1 << 53 { return String(whole) }
            return String(format: "%g", double)
        default:
            return "\(value)"
        }
    }
}

/// The ranges of every numeric parameter of SPEC §4.2 and of the output level.
///
/// Pixel coordinates and sizes fit a signed 32-bit integer (the Vulkan
/// kernels' push constants are `Int32`); real-valued parameters are bounded so
/// that every intermediate float stays finite, since ∞ − ∞ gives NaN and NaN is
/// where the CPU and a GPU stop agreeing.
public enum ParameterRanges {
    /// Crop `x`, `y` and watermark `margin`, in pixels.
    public static let offset = ParameterRange(0...Int(Int32.max))
    /// Crop `width` and `height`, in pixels.
    public static let extent = ParameterRange(1...Int(Int32.max))
    /// Resize `width` and `height`, in pixels.
    public static let resize = ParameterRange(1...65536)
    /// Adjust `brightness` (added on the 0…1 scale).
    public static let brightness = ParameterRange(-100.0...100.0)
    /// Adjust `contrast` and `saturation` (multipliers; negative ones invert).
    public static let factor = ParameterRange(-100.0...100.0)
    /// Adjust `exposure`, in stops.
    public static let exposure = ParameterRange(-64.0...64.0)
    /// Adjust `gamma`.
    public static let gamma = ParameterRange(0.01...100.0)
    /// Blur and sharpen `sigma`, in pixels.
    public static let sigma = ParameterRange(0.01...1000.0)
    /// Sharpen `amount`.
    public static let amount = ParameterRange(0.0...100.0)
    /// Sharpen `threshold` and watermark `opacity` (0…1 scale).
    public static let unit = ParameterRange(0.0...1.0)
    /// Watermark `scale`, relative to the image's width.
    public static let scale = ParameterRange(0.001...1.0)
    /// A job's most pixels per image (`--max-pixels`): the Vulkan kernels index pixels with `Int32`.
    public static let pixels = ParameterRange(1...Int(Int32.max))
    /// PNG compression `level`.
    public static let level = ParameterRange(0...9)
}
