import Compute

/// `crop`: keeps the rectangle at (`x`, `y`) of `width × height` pixels,
/// clipped to the image (an image it misses entirely fails).
public struct Crop: Sendable, Equatable, Codable {
    /// Left column.
    public var x: Int
    /// Top row.
    public var y: Int
    /// Columns kept.
    public var width: Int
    /// Rows kept.
    public var height: Int

    /// A crop rectangle.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    func validate() throws(RenderError) {
        try require(x >= 0 && y >= 0, "crop: x and y must be ≥ 0")
        try require(width > 0 && height > 0, "crop: width and height must be > 0")
    }

    func lower(into builder: inout PassBuilder) throws(RenderError) {
        let kept = PixelRect(x: x, y: y, width: width, height: height)
            .intersection(PixelRect(width: builder.width, height: builder.height))
        guard !kept.isEmpty else {
            throw .cropOutsideImage(crop: "\(x),\(y),\(width),\(height)", width: builder.width, height: builder.height)
        }
        if kept.width == builder.width && kept.height == builder.height { return }
        builder.advance(RemapKernel.pass(builder.current, map: .init(c: kept.x, f: kept.y),
                                         width: kept.width, height: kept.height))
    }
}
