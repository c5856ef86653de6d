internal import Compute

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
        try ParameterRanges.offset.check(x, "crop", "x")
        try ParameterRanges.offset.check(y, "crop", "y")
        try ParameterRanges.extent.check(width, "crop", "width")
        try ParameterRanges.extent.check(height, "crop", "height")
    }

    func lower(into builder: inout PassBuilder) throws(RenderError) {
        let kept = PixelRect(x: x, y: y, width: width, height: height)
            .intersection(PixelRect(width: builder.width, height: builder.height))
        guard !kept.isEmpty else {
            throw .cropOutsideImage(crop: "\(x),\(y),\(width),\(height)", width: builder.width, height: builder.height)
        }
        if kept.width == builder.width && kept.height == builder.height { return }
        builder.remap(.init(c: kept.x, f: kept.y), width: kept.width, height: kept.height)
    }
}
