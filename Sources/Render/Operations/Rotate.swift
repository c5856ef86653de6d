/// `rotate`: clockwise by a quarter, half or three quarters of a turn.
public struct Rotate: Sendable, Equatable, Codable {
    /// 90, 180 or 270.
    public var degrees: Int

    /// A rotation.
    public init(degrees: Int) {
        self.degrees = degrees
    }

    func validate() throws(RenderError) {
        try require([90, 180, 270].contains(degrees), "rotate", "degrees", "must be 90, 180 or 270, not \(degrees)")
    }

    func lower(into builder: inout PassBuilder) {
        let (map, width, height) = remap(width: builder.width, height: builder.height)
        builder.remap(map, width: width, height: height)
    }

    /// The map of this rotation of a `w × h` image, and the size it makes.
    func remap(width w: Int, height h: Int) -> (map: RemapKernel.Map, width: Int, height: Int) {
        switch degrees {
        // Output (x, y) shows source (y, h−1−x): the left column becomes the top row.
        case 90: (.init(a: 0, b: 1, c: 0, d: -1, e: 0, f: h - 1), h, w)
        case 180: (.init(a: -1, b: 0, c: w - 1, d: 0, e: -1, f: h - 1), w, h)
        default: (.init(a: 0, b: -1, c: w - 1, d: 1, e: 0, f: 0), h, w)
        }
    }
}
