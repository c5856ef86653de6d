/// What happened to one input.
public struct FileResult: Sendable, Equatable {
    /// The outcome for one input.
    public enum Status: String, Sendable, Codable {
        /// The output was written.
        case written
        /// The output already existed as this very work (same input, same plan) and `--overwrite` was not given.
        case skipped
        /// An output existed that this work did not make (other options, a changed
        /// input, or not kiln at all); it was kept, `error` says why, `--overwrite` replaces it.
        case conflict
        /// The input could not be exported; `error` says why.
        case failed
    }

    /// The input path.
    public var input: String
    /// The output path (the output directory joined with the item's relative output).
    public var output: String
    /// The outcome.
    public var status: Status
    /// Why it failed, naming the problem (the input is named by `input`).
    public var error: String?
    /// Bytes written (0 unless written).
    public var bytesWritten: Int = 0
    /// Smaller than a shrink-only `--resize` box, it kept its size (counted in the job's warning once written).
    public var keptItsSize = false
    /// What a person should know although the output was written (a damaged
    /// ancillary chunk left out, a colour profile dropped), each naming the input.
    public var warnings: [String] = []
}
