internal import Compute

/// remap — crop, rotate and flip: each output pixel copies one source pixel,
/// `source = (a·x + b·y + c, d·x + e·y + f)`. GPU twin: `Shaders/remap.comp`.
enum RemapKernel {
    static let kernel = KernelID("remap")

    /// An integer affine map from output to source coordinates.
    struct Map: Sendable {
        var a = 1, b = 0, c = 0, d = 0, e = 1, f = 0

        func callAsFunction(_ x: Int, _ y: Int) -> (x: Int, y: Int) {
            (a * x + b * y + c, d * x + e * y + f)
        }

        /// The map of one remap doing this one's work on the output of a remap through
        /// `next`: this map applied to `next`'s result (both copy pixels, so the one
        /// pass gives exactly the pixels of the two).
        func following(_ next: Map) -> Map {
            Map(a: a * next.a + b * next.d, b: a * next.b + b * next.e, c: a * next.c + b * next.f + c,
                d: d * next.a + e * next.d, e: d * next.b + e * next.e, f: d * next.c + e * next.f + f)
        }

        /// The source pixels a rectangle of output pixels reads.
        func footprint(_ rect: PixelRect) -> PixelRect {
            let corners = [self(rect.x, rect.y), self(rect.x + rect.width - 1, rect.y + rect.height - 1)]
            let xs = corners.map(\.x), ys = corners.map(\.y)
            return PixelRect(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()! + 1, height: ys.max()! - ys.min()! + 1)
        }
    }

    /// A `width × height` output of `input` through `map`.
    static func pass(_ input: ImageRef, map: Map, width: Int, height: Int) -> RenderPass {
        RenderPass(kernel: kernel, width: width, height: height,
                   inputs: [PassInput(input, isForward: map.d == 0 && map.e == 1, footprint: map.footprint)],
                   ints: [map.a, map.b, map.c, map.d, map.e, map.f].map { Int32($0) },
                   copiesFrom: { map($0, $1) }) { inputs, output in
            let source = inputs[0]
            output.forEachBand(rowCost: width) { rows in
                for y in rows {
                    let out = output.row(y)
                    for x in 0..<width {
                        let (sx, sy) = map(x, y)
                        out[x] = source[sx, sy]
                    }
                }
            }
        }
    }
}
