import PNGCodec
public import Render

extension RenderPipeline {
    /// A pipeline whose watermarks are PNG files (the tests' only kind).
    public convenience init(operations: [Operation], maxPixels: Int = RenderPipeline.defaultMaxPixels) throws(RenderError) {
        try self.init(operations: operations, maxPixels: maxPixels) { path, limits in
            try PNGDecoder.decode(contentsOf: path, limits: limits)
        }
    }
}
