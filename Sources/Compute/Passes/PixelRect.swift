/// A rectangle of pixels: what a pass writes in one dispatch, or reads from an input.
package struct PixelRect: Sendable, Equatable {
    /// Left column.
    package var x: Int
    /// Top row.
    package var y: Int
    /// Columns.
    package var width: Int
    /// Rows.
    package var height: Int

    /// A rectangle.
    package init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The whole of a `width × height` image.
    package init(width: Int, height: Int) {
        self.init(x: 0, y: 0, width: width, height: height)
    }

    /// True when it holds no pixel.
    package var isEmpty: Bool { width <= 0 || height <= 0 }

    /// The part inside `other` (empty when they do not meet).
    package func intersection(_ other: PixelRect) -> PixelRect {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(x + width, other.x + other.width), bottom = min(y + height, other.y + other.height)
        return PixelRect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    /// This rectangle grown by `dx` columns and `dy` rows on each side.
    package func expanded(dx: Int, dy: Int) -> PixelRect {
        PixelRect(x: x - dx, y: y - dy, width: width + 2 * dx, height: height + 2 * dy)
    }
}
