/// Errors that stop a whole export before it starts (usage errors, exit 64).
///
/// Problems with one input are never thrown: they become a failed item and the
/// rest of the batch goes on.
public enum ExportError: Error, Equatable, CustomStringConvertible {
    /// The output directory is one of the input directories.
    case outputIsInputDirectory(String)
    /// The output directory lies inside `input`, a directory that `--recursive` searches (see ``OutputSafety``).
    case outputInsideRecursiveInput(String, input: String)
    /// The output directory exists but is not a directory, or cannot be created.
    case badOutputDirectory(String, reason: String)
    /// A compression level outside 0–9.
    case badLevel(Int)
    /// The `-` list of paths has an entry that cannot be a path; `place` is "line 3" (or "entry 3" in a NUL-separated list).
    case badInputList(place: String, reason: String)
    /// A path named on the command line cannot be read (missing, or not readable), and `others` the other named
    /// paths that cannot, each with its reason ("b.png: No such file or directory"); see ``NamedInputs``.
    case unreadableInput(String, reason: String, others: [String] = [])

    public var description: String {
        switch self {
        case .outputIsInputDirectory(let dir):
            return "output directory \(dir) is an input directory: its outputs would replace the inputs, "
                + "which kiln never does; choose another --output"
        case .outputInsideRecursiveInput(let dir, let input):
            return "output directory \(dir) is inside the input directory \(input), which --recursive searches: "
                + "the scan would take the images in it for inputs and write outputs over them, which kiln never does; "
                + "choose an --output outside \(input)"
        case .badOutputDirectory(let dir, let reason):
            return "output directory \(dir): \(reason)"
        case .badLevel(let level):
            return "compression level \(level) is outside 0-9"
        case .badInputList(let place, let reason):
            return "standard input, \(place): the path \(reason); nothing was exported"
        case .unreadableInput(let path, let reason, let others):
            // Every one named, a few at most: a glob's expansion with files gone names what to fix at once.
            let shown = others.prefix(4).joined(separator: "; ")
            let more = others.count > 4 ? "; and \(others.count - 4) more" : ""
            return "cannot read the input \(path): \(reason)" + (others.isEmpty ? "" : "; nor \(shown)\(more)")
                + "; nothing was exported"
        }
    }
}
