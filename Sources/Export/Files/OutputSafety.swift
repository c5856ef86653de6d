import Foundation

/// The checks of SPEC §5 "Safety" that concern the job as a whole and must
/// pass before anything is written — before even the output directory is made.
/// (Per-output checks — never an input, skip existing, no symlinks — happen per
/// item in ``ExportJob`` and ``OutputDirectory``.)
///
/// Kiln writes only where it was asked, and never over an input. For the job
/// as a whole that means, comparing folders as files (device and inode, see
/// ``FolderAncestry``), never as path strings:
/// - the output directory is never an input directory: its outputs would
///   replace their own inputs;
/// - the output directory is never inside an input directory that
///   `--recursive` searches, at any depth, whether it exists yet or not: the
///   scan would reach it, so its files (originals, or earlier outputs) would be
///   inputs that outputs land on, and the outputs of one run the inputs of the
///   next;
/// - inside a directory input *without* `--recursive` it is allowed: the scan
///   takes only that directory's own files, never a subdirectory's, so no
///   file of the output directory is an input through it. (A file named
///   explicitly that lies in the output directory is still an input, and the
///   per-item check fails the output that would land on it.)
///
/// No flag lifts these refusals: `--overwrite` replaces earlier outputs, never inputs.
///
/// Rejected designs: leaving the output directory out of the recursive scan
/// (what kiln did) silently drops the images already there from the job and
/// lets outputs replace them; allowing a *hidden* output directory inside a
/// recursive input (the scan skips hidden entries) ties the safety of the
/// job to a detail of the listing, for a layout easy to choose otherwise.
public enum OutputSafety {
    /// Throws when the output directory is unusable, is an input directory, or
    /// lies inside an input directory that `--recursive` searches.
    public static func check(_ options: ExportOptions) throws(ExportError) {
        let dir = options.outputDirectory
        var info = stat()
        if stat(dir, &info) == 0 && (info.st_mode & S_IFMT) != S_IFDIR {
            throw .badOutputDirectory(dir, reason: "exists and is not a directory")
        }
        // In place, the directory holds only the journal: outputs go where their inputs are.
        guard !options.inPlace else { return }
        let place = FolderAncestry(path: dir)
        // A directory not made yet is no input; without --recursive nothing else is refused,
        // so a fresh output directory costs no stat per input (a list of 100,000 files).
        guard options.recursive || place.folder != nil else { return }
        let holders = options.recursive ? Set(place.holders) : []
        for input in options.inputs where input != "-" {
            guard let identity = FileIdentity(path: input) else { continue }
            if identity == place.folder { throw .outputIsInputDirectory(dir) }
            if holders.contains(identity) { throw .outputInsideRecursiveInput(dir, input: input) }
        }
    }
}
