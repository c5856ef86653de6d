public import ImageCore

/// One input image and where its output goes.
public struct ExportItem: Sendable, Codable, Equatable {
    /// The input path, as given or as found under a directory input.
    public var input: String
    /// The output path relative to the output directory (ends in the output format's extension,
    /// `.png`, `.jpg` or `.webp`; an item whose
    /// ``problem`` is about a whole folder names the folder there instead).
    public var output: String
    /// A reason this item cannot be exported, known before it runs (e.g. two
    /// inputs that map to the same output, or a name that is not UTF-8); the
    /// job reports it as a failure.
    public var problem: String?

    /// The format its output is written in, by the output's name (nil for a folder's problem).
    public var outputFormat: ImageFormat? { ImageCodecs.format(byExtensionOf: output) }

    /// An item to export.
    public init(input: String, output: String, problem: String? = nil) {
        self.input = input
        self.output = output
        self.problem = problem
    }
}
