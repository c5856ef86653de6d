internal import Compute
import ImageCore


/// Collects the passes of one image while its operations lower themselves:
/// the image they act on now (`current`, `width × height`) and what came before.
struct PassBuilder {
    private(set) var constants: [FloatImage] = []
    private(set) var passes: [RenderPass] = []
    /// The image the next operation acts on.
    private(set) var current: ImageRef = .source
    private(set) var width: Int
    private(set) var height: Int
    /// The most pixels an image made here may have.
    let pixelLimit: Int
    /// The remap pass that made `current`, its input and map, while no pass has read it.
    private var lastRemap: (pass: Int, input: ImageRef, map: RemapKernel.Map)?
    /// Where the picture lies in `current` when that is no whole number of pixels: a source
    /// shrunk on load, then the rotations and flips of its EXIF orientation. Nil once any other
    /// pass made `current` (a resize maps the extent onto whole pixels).
    private(set) var extent: Extent?
    /// What the operations did beyond the pixels, for the job's warnings.
    var notes = RenderNotes()

    /// The picture's place in an image that holds it in part of its edge pixels (``ShrinkOnLoad``).
    struct Extent: Equatable {
        /// Where it starts, in pixels: 0 as decoded; a flip puts the partial edge pixel first.
        var x: Double
        var y: Double
        /// Its size before the shrink, in the image's present axes.
        var width: Int
        var height: Int
        /// How many pixels of the image it spans, in the image's present axes.
        var spanWidth: Double
        var spanHeight: Double

        /// Where it starts and how many pixels it spans along x (or y, `vertical`).
        func axis(vertical: Bool) -> (start: Double, span: Double) {
            vertical ? (y, spanHeight) : (x, spanWidth)
        }
    }

    /// A builder for a `width × height` source; `shrunkFrom`: the picture's own size when the
    /// decoder shrank it on load.
    init(width: Int, height: Int, pixelLimit: Int, shrunkFrom: ShrinkOnLoad? = nil) {
        self.width = width
        self.height = height
        self.pixelLimit = pixelLimit
        extent = shrunkFrom.map { Extent(x: 0, y: 0, width: $0.width, height: $0.height, spanWidth: $0.spanWidth,
                                         spanHeight: $0.spanHeight) }
    }

    /// Adds a pass that computes an intermediate image; `current` is unchanged.
    mutating func add(_ pass: RenderPass) -> ImageRef {
        passes.append(pass)
        return .pass(passes.count - 1)
    }

    /// Adds a pass whose output is the image the next operation acts on.
    mutating func advance(_ pass: RenderPass) {
        move(to: add(pass), width: pass.width, height: pass.height)
    }

    /// Makes `current` a `width × height` remap of it through `map` (a crop, a
    /// rotation, a flip). One that follows another remap is composed with it,
    /// so a run of them is one pass reading the image before them: the flags'
    /// `--crop` then `--rotate 90`, or an EXIF orientation then `--flip v`, read
    /// the source backwards from its stored 8/16-bit rows (SPEC §8) instead of
    /// holding the crop's float image whole to turn it. (A 9 MP photo with
    /// `--crop … --rotate 90` peaked at 313 MB, against 98 MB for the rotation alone.)
    mutating func remap(_ map: RemapKernel.Map, width: Int, height: Int) {
        let moved = extent.map { Self.extent($0, through: map) }
        defer { extent = moved }
        if let last = lastRemap, current == .pass(last.pass), last.pass == passes.count - 1 {
            let composed = last.map.following(map)
            passes[last.pass] = RemapKernel.pass(last.input, map: composed, width: width, height: height)
            lastRemap = (last.pass, last.input, composed)
            move(to: current, width: width, height: height)
        } else {
            let input = current
            advance(RemapKernel.pass(input, map: map, width: width, height: height))
            lastRemap = (passes.count - 1, input, map)
        }
    }

    /// Makes `image` (`width × height`) the one the next operation acts on.
    mutating func move(to image: ImageRef, width: Int, height: Int) {
        current = image
        self.width = width
        self.height = height
        extent = nil
    }

    /// `extent` in the output of a remap through `map` (a rotation, a flip: a signed permutation).
    /// On pixel centers the map is S = M·O + t, t = (c, f) + ½·(1 − a − b, 1 − d − e); M is
    /// orthogonal, so O = Mᵀ·(S − t), and the extent's two corners give its new place.
    private static func extent(_ extent: Extent, through map: RemapKernel.Map) -> Extent {
        let tx = Double(map.c) + 0.5 * Double(1 - map.a - map.b), ty = Double(map.f) + 0.5 * Double(1 - map.d - map.e)
        func output(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
            (Double(map.a) * (x - tx) + Double(map.d) * (y - ty), Double(map.b) * (x - tx) + Double(map.e) * (y - ty))
        }
        let (sx, sy) = (extent.axis(vertical: false), extent.axis(vertical: true))
        let first = output(sx.start, sy.start), last = output(sx.start + sx.span, sy.start + sy.span)
        let turned = map.b != 0
        return Extent(x: min(first.x, last.x), y: min(first.y, last.y), width: turned ? extent.height : extent.width,
                      height: turned ? extent.width : extent.height, spanWidth: turned ? extent.spanHeight : extent.spanWidth,
                      spanHeight: turned ? extent.spanWidth : extent.spanHeight)
    }

    /// Adds an image the passes can read.
    mutating func constant(_ image: FloatImage) -> ImageRef {
        constants.append(image)
        return .constant(constants.count - 1)
    }

    /// Throws `RenderError.imageTooLarge` unless `size` has at most `limit` pixels.
    static func check(_ size: (width: Int, height: Int), operation: String, limit: Int) throws(RenderError) {
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        guard !overflow, pixels <= limit else {
            throw .imageTooLarge(operation: operation, width: size.width, height: size.height, limit: limit)
        }
    }

    /// The passes so far.
    var graph: PassGraph { PassGraph(constants: constants, passes: passes) }

    /// Resamples `input` (`from`) to `to` on premultiplied alpha: a horizontal
    /// then a vertical pass, leaving out an axis whose size does not change.
    /// Where `window` is given, only that rectangle of the resize is made, each
    /// pixel exactly as the whole resize makes it; it must span every axis the
    /// resize leaves alone (``resamples(from:to:extent:)``). Returns the result
    /// (`input` when nothing changes).
    ///
    /// The only way an image grows, so the one place sizes are bounded: throws
    /// `RenderError.imageTooLarge` (naming `operation`) when what is made or the
    /// intermediate exceeds `pixelLimit`, before any table of taps is made.
    mutating func resample(_ input: ImageRef, from: (width: Int, height: Int), to: (width: Int, height: Int),
                           window: PixelRect? = nil, extent: Extent? = nil, filter: Resize.Filter,
                           for operation: String) throws(RenderError) -> ImageRef {
        let made = window ?? PixelRect(x: 0, y: 0, width: to.width, height: to.height)
        // The output first: a refusal names the size asked for; then the image between the two passes,
        // named as such (a 640×480 fill to 1000×100 was refused as "a 1000×480 image", a size nobody asked for).
        try Self.check((made.width, made.height), operation: operation, limit: pixelLimit)
        try Self.check((made.width, from.height), operation: operation + " (between its horizontal and vertical passes)",
                       limit: pixelLimit)
        // The part of the source each axis maps onto the output: all of it, or the picture's extent.
        let spans = Self.spans(from: from, extent: extent)
        let (horizontal, vertical) = Self.resamples(from: from, to: to, extent: extent)
        precondition((horizontal || made.x == 0 && made.width == to.width) && (vertical || made.y == 0 && made.height == to.height),
                     "a window crops an axis the resize leaves alone")
        var image = input
        if horizontal {
            image = add(ResampleKernel.pass(image, vertical: false, filter: filter, from: from.width, to: made.width,
                                            of: to.width, first: made.x, span: spans[0], across: from.height,
                                            premultiplyInput: true, unpremultiplyOutput: !vertical))
        }
        if vertical {
            image = add(ResampleKernel.pass(image, vertical: true, filter: filter, from: from.height, to: made.height,
                                            of: to.height, first: made.y, span: spans[1], across: made.width,
                                            premultiplyInput: !horizontal, unpremultiplyOutput: true))
        }
        return image
    }

    /// Whether a resize of `from` (its picture where `extent` says) to `to` resamples along x and along y.
    static func resamples(from: (width: Int, height: Int), to: (width: Int, height: Int), extent: Extent?) -> (x: Bool, y: Bool) {
        let spans = Self.spans(from: from, extent: extent)
        return (from.width != to.width || spans[0] != (0, Double(from.width)),
                from.height != to.height || spans[1] != (0, Double(from.height)))
    }

    /// The part of the source each axis maps onto a resize's output: all of it, or the picture's extent.
    private static func spans(from: (width: Int, height: Int), extent: Extent?) -> [(start: Double, span: Double)] {
        [false, true].map { vertical in extent?.axis(vertical: vertical) ?? (0, Double(vertical ? from.height : from.width)) }
    }
}
