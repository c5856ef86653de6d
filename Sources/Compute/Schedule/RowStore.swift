internal import ImageCore

/// The rows of one image of a graph that its consumers still need, in float:
/// a window that slides down the image. New rows are appended at the end;
/// rows no consumer needs any more are dropped from the start, and the space
/// is reused, so the storage follows the window's height, not the image's.
final class RowStore: RowWindow {
    /// Pixels per row.
    let width: Int
    let depth: PixelBuffer.Depth
    private var storage: UnsafeMutablePointer<SIMD4<Float>>
    /// Rows the storage holds.
    private var capacity: Int
    /// Where row `top` sits in the storage, in rows.
    private var offset = 0
    /// The first row held.
    private(set) var top = 0
    /// Rows held.
    private(set) var count = 0
    /// Rows above this one may hold alpha below 1 (`Int.min`: none); rows appended count as
    /// such until ``appendedOpaque()`` says otherwise. What it was before the last append.
    private var translucentUntil = Int.min
    private var translucentBefore = Int.min

    init(width: Int, depth: PixelBuffer.Depth) {
        self.width = width
        self.depth = depth
        capacity = 0
        storage = .allocate(capacity: 1)
    }

    deinit { storage.deallocate() }

    /// The rows held.
    var view: FloatRows {
        FloatRows(base: storage + offset * width, width: width, top: top, height: count, depth: depth,
                  opaque: top >= translucentUntil)
    }

    /// The rows of the last ``append(_:)`` turned out opaque (the unpacked source's).
    func appendedOpaque() {
        translucentUntil = translucentBefore
    }

    /// Forgets the rows above `row`.
    func drop(below row: Int) {
        let gone = min(max(0, row - top), count)
        top += gone
        count -= gone
        offset += gone
    }

    /// Forgets every row; the next appended row is `row`.
    func restart(at row: Int) {
        top = row
        count = 0
        offset = 0
        translucentUntil = .min
        translucentBefore = .min
    }

    /// Room for `rows` rows from the first held (row `top`) on. A window that
    /// grows a chunk at a time copies what it holds each time: an image held
    /// whole (9 MP rotated after a blur) peaked at its old and new storage
    /// together, 315 MB where 243 MB was estimated, and copied it over and over.
    func reserve(rows: Int) {
        if rows > capacity { move(toCapacity: rows) }
    }

    /// Moves the rows held to the start of new storage of `rows` rows.
    private func move(toCapacity rows: Int) {
        let fresh = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: rows * width)
        HugePages.advise(fresh, bytes: rows * width * MemoryLayout<SIMD4<Float>>.stride)
        fresh.initialize(from: storage + offset * width, count: count * width)
        storage.deallocate()
        storage = fresh
        capacity = rows
        offset = 0
    }

    /// Makes room for `rows` more rows at the end and returns a view of them,
    /// to be filled by the caller (they count as held from now on). Views taken
    /// before may move.
    func append(_ rows: Int) -> FloatRows {
        if offset + count + rows > capacity {
            if count + rows <= capacity {
                storage.update(from: storage + offset * width, count: count * width)
                offset = 0
            } else {
                // Room for a few more chunks: windows grow by a chunk at a time.
                move(toCapacity: count + 2 * rows)
            }
        }
        let first = storage + (offset + count) * width
        let view = FloatRows(base: first, width: width, top: end, height: rows, depth: depth)
        count += rows
        translucentBefore = translucentUntil
        translucentUntil = end
        return view
    }
}
