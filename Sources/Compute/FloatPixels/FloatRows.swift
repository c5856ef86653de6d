package import ImageCore

/// A view of some rows (and columns) of a float image held elsewhere: what a
/// pass reads and writes in strip execution. Pixels are addressed in the whole
/// image's coordinates, so kernels need not know which part they were handed.
/// The owner (`RowStore`) keeps the memory alive while the view is in use.
// Unchecked: a view (a pointer) into a RowStore; passes hand disjoint output rows to each thread and only read inputs.
package struct FloatRows: @unchecked Sendable {
    /// The first held pixel: column `left` of row `top`.
    package let base: UnsafeMutablePointer<SIMD4<Float>>
    /// Pixels per held row (the stride).
    package let width: Int
    /// The first column held.
    package let left: Int
    /// The first row held.
    package let top: Int
    /// Rows held.
    package let height: Int
    /// The bit depth the image came from and goes back to.
    package let depth: PixelBuffer.Depth
    /// Every pixel held has alpha exactly 1 (rows unpacked from an opaque source):
    /// a kernel may read them without premultiplying (c · 1 = c). False when not known.
    package let opaque: Bool

    /// A view; see the properties.
    package init(base: UnsafeMutablePointer<SIMD4<Float>>, width: Int, left: Int = 0, top: Int, height: Int,
                 depth: PixelBuffer.Depth, opaque: Bool = false) {
        self.base = base
        self.width = width
        self.left = left
        self.top = top
        self.height = height
        self.depth = depth
        self.opaque = opaque
    }

    /// The rows held.
    @inlinable
    package var rows: Range<Int> { top..<(top + height) }

    /// Row `y` (image coordinates), starting at column `left`.
    @inlinable @inline(__always)
    package func row(_ y: Int) -> UnsafeMutablePointer<SIMD4<Float>> {
        base + (y - top) * width
    }

    /// The pixel at image coordinates (`x`, `y`).
    @inlinable @inline(__always)
    package subscript(x: Int, y: Int) -> SIMD4<Float> {
        base[(y - top) * width + (x - left)]
    }

    /// Calls `body` with disjoint bands of `rows` covering them, on all cores
    /// when the work is large (`rowCost`: pixel-operations per row).
    package func forEachBand(rowCost: Int, _ body: @Sendable (Range<Int>) -> Void) {
        let top = self.top
        ParallelLoop.forEachChunk(height, itemCost: rowCost) { band in
            body((top + band.lowerBound)..<(top + band.upperBound))
        }
    }
}
