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
        let (map, width, height) = remap(width: builder.width, height: builder.height)
        builder.remap(map, width: width, height: height)
    }

    /// The map of this mirror of a `w × h` image, and the size it makes (the same).
    func remap(width w: Int, height h: Int) -> (map: RemapKernel.Map, width: Int, height: Int) {
        (axis == .h ? .init(a: -1, c: w - 1) : .init(e: -1, f: h - 1), w, h)
    }
}
