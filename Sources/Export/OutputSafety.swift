import Foundation

/// The checks of SPEC §5 "Safety" that concern the job as a whole and must
/// pass before anything is written. (Per-output checks — never an input,
/// skip existing, no symlinks — happen per item in ``ExportJob`` and
/// ``OutputDirectory``.)
public enum OutputSafety {
    /// Throws when the output directory is unusable, or is an input directory:
    /// its outputs would replace their own inputs, which kiln never does, so no
    /// flag allows it (`--overwrite` replaces earlier outputs, never inputs).
    public static func check(_ options: ExportOptions) throws(ExportError) {
        let dir = options.outputDirectory
        var info = stat()
        if stat(dir, &info) == 0 && (info.st_mode & S_IFMT) != S_IFDIR {
            throw .badOutputDirectory(dir, reason: "exists and is not a directory")
        }
        // In place, the directory holds only the journal: outputs go where their inputs are.
        guard !options.inPlace, let output = FileIdentity(path: dir) else { return }
        for input in options.inputs where input != "-" && FileIdentity(path: input) == output {
            throw .outputIsInputDirectory(dir)
        }
    }
}
