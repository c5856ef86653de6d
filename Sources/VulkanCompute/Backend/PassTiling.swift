internal import Compute
/// Splits a pass's output into rectangles small enough that every buffer
/// range it binds (the output rectangle's span and each input footprint's
/// span) fits one storage-buffer binding (`maxStorageBufferRange`: 128 MiB on
/// lavapipe). Small images are one tile; rotations of large ones split by
/// columns, windows by rows.
enum PassTiling {
    /// Pixels a binding's start is aligned to: 256 bytes of float pixels, the
    /// largest `minStorageBufferOffsetAlignment` the specification allows.
    static let alignment = 16

    /// The pixel indices a binding must cover for `rect` of an image `width`
    /// wide, the start aligned down to `alignment`.
    static func span(of rect: PixelRect, width: Int) -> Range<Int> {
        let first = rect.y * width + rect.x
        let end = (rect.y + rect.height - 1) * width + rect.x + rect.width
        return (first / alignment * alignment)..<end
    }

    /// The part of an input an output rectangle reads, clipped to the input;
    /// a pixel when nothing is read (a binding cannot be empty).
    static func footprint(_ input: PassInput, of rect: PixelRect, inputSize: (width: Int, height: Int)) -> PixelRect {
        let clipped = input.footprint(rect).intersection(PixelRect(width: inputSize.width, height: inputSize.height))
        return clipped.isEmpty ? PixelRect(x: 0, y: 0, width: 1, height: 1) : clipped
    }

    /// Output rectangles covering `region` of `pass` (all of it by default), each
    /// needing at most `limit` pixels per binding.
    static func tiles(for pass: RenderPass, region: PixelRect? = nil, inputSizes: [(width: Int, height: Int)],
                      limit: Int) throws(ComputeError) -> [PixelRect] {
        func need(_ rect: PixelRect) -> Int {
            zip(pass.inputs, inputSizes).reduce(span(of: rect, width: pass.width).count) { most, input in
                max(most, span(of: footprint(input.0, of: rect, inputSize: input.1), width: input.1.width).count)
            }
        }
        var tiles: [PixelRect] = []
        var pending = [region ?? PixelRect(width: pass.width, height: pass.height)]
        while let rect = pending.popLast() {
            if need(rect) <= limit {
                tiles.append(rect)
                continue
            }
            guard rect.width > 1 || rect.height > 1 else {
                throw .setupFailed("a pixel of \(pass.kernel) reads more than one storage-buffer binding holds")
            }
            let top = PixelRect(x: rect.x, y: rect.y, width: rect.width, height: rect.height / 2)
            let rows = (top, PixelRect(x: rect.x, y: rect.y + top.height, width: rect.width, height: rect.height - top.height))
            let left = PixelRect(x: rect.x, y: rect.y, width: rect.width / 2, height: rect.height)
            let columns = (left, PixelRect(x: rect.x + left.width, y: rect.y, width: rect.width - left.width, height: rect.height))
            // Split the way that shrinks the largest binding most.
            let rowNeed = rect.height > 1 ? max(need(rows.0), need(rows.1)) : .max
            let columnNeed = rect.width > 1 ? max(need(columns.0), need(columns.1)) : .max
            let halves = rowNeed <= columnNeed ? rows : columns
            pending.append(halves.1)
            pending.append(halves.0)
        }
        return tiles
    }
}
