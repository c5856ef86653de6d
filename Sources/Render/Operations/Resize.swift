internal import Compute
import Foundation

/// `resize`: to a box of `width × height` (either may be omitted: then the
/// aspect ratio decides it), on premultiplied alpha, clamped to 0…1.
///
/// `inside` keeps the aspect ratio within the box; `cover` fills the box and
/// crops the overflow centered; `fill` stretches. Without `upscale` no axis
/// grows: an image already inside the box is left as it is (`fill` caps each
/// axis at its size; `cover` then crops to what it has). Sizes are rounded to
/// the nearest pixel, at least 1.
public struct Resize: Sendable, Equatable, Codable {
    /// How the image meets the box.
    public enum Fit: String, Sendable, Codable, CaseIterable {
        /// Within the box, aspect kept.
        case inside
        /// Covering the box, aspect kept, overflow cropped centered.
        case cover
        /// Exactly the box, stretched.
        case fill
    }

    /// The resampling filter.
    public enum Filter: String, Sendable, Codable, CaseIterable {
        /// Lanczos, 3 lobes: sharp, the default.
        case lanczos3
        /// Triangle (linear interpolation; an area-weighted average when downscaling).
        case bilinear
        /// The one source pixel under each output pixel's center.
        case nearest

        /// Half-width of the filter at scale 1.
        var support: Double {
            switch self {
            case .lanczos3: 3
            case .bilinear: 1
            case .nearest: 0.5
            }
        }

        /// The shader's code for the filter.
        var code: Int32 {
            switch self {
            case .nearest: 0
            case .bilinear: 1
            case .lanczos3: 2
            }
        }

        /// The filter's value at distance `x` (in filter units).
        func weight(_ x: Double) -> Double {
            let x = abs(x)
            switch self {
            case .nearest: return x <= 0.5 ? 1 : 0
            case .bilinear: return max(0, 1 - x)
            case .lanczos3:
                if x < 1e-6 { return 1 }
                guard x < 3 else { return 0 }
                return sin(.pi * x) / (.pi * x) * sin(.pi * x / 3) / (.pi * x / 3)
            }
        }
    }

    /// Box width; nil: from the height and the aspect ratio.
    public var width: Int?
    /// Box height; nil: from the width and the aspect ratio.
    public var height: Int?
    /// How the image meets the box.
    public var fit: Fit
    /// The resampling filter.
    public var filter: Filter
    /// Whether the image may grow.
    public var upscale: Bool

    /// A resize; at least one of `width` and `height` is needed.
    public init(width: Int?, height: Int?, fit: Fit = .inside, filter: Filter = .lanczos3, upscale: Bool = false) {
        self.width = width
        self.height = height
        self.fit = fit
        self.filter = filter
        self.upscale = upscale
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(width: try container.decodeIfPresent(Int.self, forKey: .width),
                  height: try container.decodeIfPresent(Int.self, forKey: .height),
                  fit: try container.decodeIfPresent(Fit.self, forKey: .fit) ?? .inside,
                  filter: try container.decodeIfPresent(Filter.self, forKey: .filter) ?? .lanczos3,
                  upscale: try container.decodeIfPresent(Bool.self, forKey: .upscale) ?? false)
    }

    func validate() throws(RenderError) {
        try require(width != nil || height != nil, "resize", "width", "missing (a width, a height or both are needed)")
        if let width { try ParameterRanges.resize.check(width, "resize", "width") }
        if let height { try ParameterRanges.resize.check(height, "resize", "height") }
    }

    /// The output size when it does not depend on the image: `fill` or `cover`
    /// with both sides given and `upscale` (the box, exactly); nil otherwise.
    var fixedSize: (width: Int, height: Int)? {
        guard upscale, fit != .inside, let width, let height else { return nil }
        return (width, height)
    }

    /// The size an image of `width × height` is resampled to (before the crop of `cover`): the
    /// least a decoder that can shrink on load (JPEG's DCT scaling) must keep.
    public func resampledSize(width: Int, height: Int) -> (width: Int, height: Int) {
        target(width: width, height: height).resized
    }

    /// The scale of each axis that meets the box, before `upscale` caps it.
    private func scales(width w: Int, height h: Int) -> (x: Double, y: Double) {
        let sx = width.map { Double($0) / Double(w) }, sy = height.map { Double($0) / Double(h) }
        switch (sx, sy) {
        case (let x?, let y?) where fit == .fill:
            return (x, y)
        case (let x?, let y?):
            let s = fit == .cover ? max(x, y) : min(x, y)
            return (s, s)
        default:
            let s = sx ?? sy!
            return (s, s)
        }
    }

    /// Whether an image of `width × height` is smaller than the box on an axis it would have to grow
    /// on, and keeps its size there because `upscale` is off (``RenderNotes/keptItsSize``).
    func keepsItsSize(width: Int, height: Int) -> Bool {
        let (x, y) = scales(width: width, height: height)
        return !upscale && (x > 1 || y > 1)
    }

    /// The size an image of `width × height` is resampled to, and the centered crop after it (for `cover`).
    func target(width w: Int, height h: Int) -> (resized: (width: Int, height: Int), cropped: (width: Int, height: Int)) {
        let cap = upscale ? Double.infinity : 1
        let (x, y) = scales(width: w, height: h)
        let resized = (width: max(1, Int((Double(w) * min(x, cap)).rounded())),
                       height: max(1, Int((Double(h) * min(y, cap)).rounded())))
        guard fit == .cover, let width, let height else { return (resized, resized) }
        return (resized, (min(width, resized.width), min(height, resized.height)))
    }

    /// Whether this resize runs before `turns` (``lower(into:after:)``) on the image `builder` holds: when the
    /// resized image, held whole for the turns, is no more than the other order holds of the source (its stored
    /// rows, and a quarter more for its strips). Held as packed rows where the turns end the graph
    /// (`endsInACopy`: nothing but crops, turns and mirrors after the resize, which compose with them into the
    /// last pass, ``PackedCopy``), at the source's depth as its rows are; as floats (16 bytes a pixel, against
    /// 4 of rows at 8 bits) where other operations follow. So a thumbnail always (a 4000×3000 phone portrait to
    /// 1600 wide: the peak 195 → 105 MB, 1.2 × less CPU, the same bytes), a large target where nothing follows,
    /// and no upscale past a quarter (to 6000 wide, 768 MB of floats or 192 MB of rows where the source's are 48).
    /// Never for `nearest`: its ties fall to the other side of a mirrored axis, a pixel's shift from the other order.
    func runsFirst(after turns: [Operation], on builder: PassBuilder, endsInACopy: Bool) -> Bool {
        guard filter != .nearest else { return false }
        let plan = plan(on: builder, after: turns)
        let made = plan.folds ? plan.window : PixelRect(x: 0, y: 0, width: plan.made.width, height: plan.made.height)
        return made.width * made.height * (endsInACopy ? 4 : 16) <= plan.upright.width * plan.upright.height * 5
    }

    /// The picture's size after `turns` (as `builder` holds it, a source shrunk on load sized as the whole
    /// picture), and whether they transpose it (an odd number of quarter turns).
    private static func sizes(after turns: [Operation], of builder: PassBuilder)
        -> (upright: (width: Int, height: Int), transposed: Bool) {
        let stored = (width: builder.extent?.width ?? builder.width, height: builder.extent?.height ?? builder.height)
        let transposed = turns.count { if case .rotate(let rotate) = $0 { rotate.degrees != 180 } else { false } } % 2 == 1
        return (transposed ? (stored.height, stored.width) : stored, transposed)
    }

    /// Lowers this resize (with its `cover` crop), and the turns and mirrors before it (`turns`: rotations and
    /// flips, which only move pixels; none for a resize alone; see ``runsFirst(after:on:endsInACopy:)``) in the other order:
    /// the resample first, on the rows as stored (the box turned back where the turns transpose them), then the
    /// turns on the smaller image, then `cover`'s crop. The same picture (resampling is separable, and the turns
    /// move whole pixels), within a level of the other order's. A photo turned by a quarter (EXIF orientation 6:
    /// a phone's portrait) was read by columns and held whole at its full size before the resize: 3 × the CPU
    /// of the same resize unturned (measured, 4000×3000 to 1600 wide, beside vips, which turns after its shrink
    /// too).
    ///
    /// `cover`'s crop is made by the resample itself (the rectangle of the resize it keeps, found back through the
    /// turns): a 4097×3 strip covered to 700×500 was resized to 682,833×500 and then cropped, 341 MP made for 0.35
    /// (on Vulkan 33 s, one submission per row). Where the crop falls on an axis
    /// the resize leaves alone (its scale exactly 1), the crop is a copy after the turns, as before.
    func lower(into builder: inout PassBuilder, after turns: [Operation] = []) throws(RenderError) {
        let plan = plan(on: builder, after: turns)
        if keepsItsSize(width: plan.upright.width, height: plan.upright.height) { builder.notes.keptItsSize = true }
        let image = try builder.resample(builder.current, from: (builder.width, builder.height), to: plan.made,
                                         window: plan.folds ? plan.window : nil, extent: builder.extent, filter: filter,
                                         for: "resize")
        builder.move(to: image, width: plan.folds ? plan.window.width : plan.made.width,
                     height: plan.folds ? plan.window.height : plan.made.height)
        for turn in turns {
            let (map, width, height) = Self.remap(of: turn, width: builder.width, height: builder.height)
            builder.remap(map, width: width, height: height)
        }
        if plan.cropped != plan.resized && !plan.folds {
            builder.remap(RemapKernel.Map(c: plan.kept.x, f: plan.kept.y), width: plan.cropped.width, height: plan.cropped.height)
        }
    }

    /// How this resize is made on the image `builder` holds after `turns`: the size it resamples to, in the stored
    /// axes (`made`); the upright picture's size, the resize's and its crop's there, and the crop's rectangle
    /// (`kept`); where the turns take that rectangle from in `made` (`window`); and whether the resample makes
    /// only that rectangle (`folds`: the crop falls on axes it resamples).
    private func plan(on builder: PassBuilder, after turns: [Operation])
        -> (made: (width: Int, height: Int), upright: (width: Int, height: Int), resized: (width: Int, height: Int),
            cropped: (width: Int, height: Int), kept: PixelRect, window: PixelRect, folds: Bool) {
        // A source shrunk on load is sized as the whole picture, and resampled from its true extent.
        let (upright, transposed) = Self.sizes(after: turns, of: builder)
        let (resized, cropped) = target(width: upright.width, height: upright.height)
        let made = transposed ? (width: resized.height, height: resized.width) : resized
        let kept = PixelRect(x: (resized.width - cropped.width) / 2, y: (resized.height - cropped.height) / 2,
                             width: cropped.width, height: cropped.height)
        // The crop's rectangle back through the turns, composed as the remaps compose (the first turn's map of the
        // next one's: ``PassBuilder/remap(_:width:height:)``).
        var size = made
        var composed: RemapKernel.Map?
        for turn in turns {
            let step = Self.remap(of: turn, width: size.width, height: size.height)
            composed = composed.map { $0.following(step.map) } ?? step.map
            size = (step.width, step.height)
        }
        let window = composed?.footprint(kept) ?? kept
        let resamples = PassBuilder.resamples(from: (builder.width, builder.height), to: made, extent: builder.extent)
        let folds = cropped != resized && (resamples.x || window.x == 0 && window.width == made.width)
            && (resamples.y || window.y == 0 && window.height == made.height)
        return (made, upright, resized, cropped, kept, window, folds)
    }

    /// The map of `turn` (a rotation or a flip, what may come before the resize) of a `width × height` image.
    private static func remap(of turn: Operation, width: Int, height: Int) -> (map: RemapKernel.Map, width: Int, height: Int) {
        switch turn {
        case .rotate(let rotate): rotate.remap(width: width, height: height)
        case .flip(let flip): flip.remap(width: width, height: height)
        default: preconditionFailure("only rotations and flips come before the resize")
        }
    }

}
