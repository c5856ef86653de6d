/// `flip`: mirrors the image.
public struct Flip: Sendable, Equatable, Codable {
    /// Which way.
    public enum Axis: String, Sendable, Codable, CaseIterable {
        /// Left ↔ right.
        case h
        /// Top ↔ bottom.
        case v
    }

    /// Which way.
    public var axis: Axis

    /// A flip.
    public init(axis: Axis) {
        self.axis = axis
    }

    func lower(into builder: inout PassBuilder) {
        let w = builder.width, h = builder.height
        let map: RemapKernel.Map = axis == .h ? .init(a: -1, c: w - 1) : .init(e: -1, f: h - 1)
        builder.remap(map, width: w, height: h)
    }
}
