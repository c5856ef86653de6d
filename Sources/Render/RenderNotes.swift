/// What the operations did to an image of a given size beyond its pixels, for the job's warnings:
/// found while its passes are built (``RenderPipeline/notes(width:height:shrunkFrom:)``), so the same
/// for every image of that size.
public struct RenderNotes: Sendable, Equatable {
    /// A resize left the image its size on an axis where it is smaller than the resize's box
    /// (`upscale` off), whatever came after the resize (a crop, a rotation): what the job's
    /// "smaller than the resize box" warning counts. The output's size alone cannot say.
    public var keptItsSize = false
    /// A watermark fell wholly outside the image (a margin wider than it), so nothing of it was drawn.
    public var watermarkMissed = false

    /// No note.
    public init() {}
}
