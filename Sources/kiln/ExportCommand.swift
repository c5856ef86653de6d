import ArgumentParser
import Compute
import VulkanCompute
import Export
import Foundation
import ImageCore
import Render

/// `kiln export <inputs>... --output <dir>`: the batch export of SPEC §5.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export PNG, JPEG and WebP images into an output directory.",
        discussion: """
        Inputs are files, directories (only their *.png, *.jpg, *.jpeg, *.jpe, *.jfif and *.webp \
        files, any case; subdirectories with \
        --recursive; the other files are reported as ignored, by their format where \
        the name says one, once per job), or - to read paths from standard input, one per line (with -0, \
        NUL-separated, as find -print0 writes). A path with a control character in a \
        list of lines is refused, naming its line; with -0 a path may hold any byte \
        but NUL (a newline too). Outputs mirror each input's relative path under \
        --output with the extension of the output format (.png, .jpg, .webp), each written \
        whole before it takes its name. The format of an input is recognised by its \
        content; --format same (the default) writes each output in the format its \
        input's name says (else its content). Inputs are never overwritten: --output may not be an input \
        directory, nor lie inside one that --recursive searches (exit 64, \
        nothing created; without --recursive only a directory's own files are \
        inputs, so an --output inside it is fine). A name that is not valid UTF-8 \
        fails alone, shown escaped (\\xFF). An existing output made \
        by this same work is skipped; one made otherwise (other options, a changed \
        input, not by kiln) is kept and reported as a conflict (exit 1) unless \
        --overwrite. OUTPUT/.kiln (the journal) is removed after a run that exits 0 (no failure, no conflict) \
        unless --keep-journal or --shard (a shard's stays, for kiln status); what made the outputs is kept in \
        $XDG_CACHE_HOME/kiln/made (else ~/.cache/kiln/made), so the same export \
        again skips them without decoding their inputs.

        Operations apply in this order, whatever the order of the flags: crop, \
        rotate, flip, resize, adjust (brightness, contrast, saturation, exposure, \
        gamma), blur, sharpen, grayscale, watermark; then the output format: PNG at \
        --level; JPEG at --quality (default 85), optimised Huffman tables (standard \
        ones above about 55 megapixels at 4:2:0, 28 at 4:4:4, where libjpeg would hold every coefficient), \
        4:2:0 below quality 90 and 4:4:4 at or above (--subsample), alpha flattened \
        onto --background (white); WebP lossy at --quality (default 80) or \
        --lossless (a lossless input stays lossless under --format same unless \
        a quality is given), at --effort (default 4), each image held whole (libwebp encodes a whole picture, at \
        most 16383 pixels a side). EXIF and XMP are kept unless --strip (which keeps ICC). \
        An animated WebP is refused.

        The job runs as a continued-processing task. Ctrl-C, `kiln cancel DIR`, \
        SIGTERM and SIGHUP (the terminal closed) stop taking new images and let the \
        images in flight finish, for up to --grace seconds (then they are left for \
        resume); a second Ctrl-C exits at once. A kiln started with SIGHUP ignored \
        (nohup) keeps it ignored. Progress counts decoding, rendering and encoding, \
        so the stall watchdog (--stall-timeout) never stops a job that works; an image \
        two runs in a row stalled on is left out by the next resume. \
        `kiln resume DIR` finishes the job. Only one job \
        uses the GPU at a time (and, by default, one the CPU: KILN_CPU_SLOTS sets how \
        many); --strategy says whether to wait. The slots are files in \
        $KILN_RUNTIME_DIR, else $XDG_RUNTIME_DIR/kiln, else /tmp/kiln-<uid>; that \
        folder must be yours, not a symbolic link and not writable by group or others (the \
        /tmp default: mode 0700), or the job exits 69 before writing anything.

        With --shard K/N, a process exports its share of the inputs, so that N \
        processes (a Kubernetes Indexed Job, a Slurm job array, GNU parallel) export \
        the whole into one shared --output, each input exactly once. Each shard keeps \
        its journal and lock in OUTPUT/.kiln/shards/K-of-N; running the same command \
        again continues it; `kiln status OUTPUT` shows every shard, `kiln cancel \
        OUTPUT` stops them all. A second process on a running shard exits 69 (waits \
        with an explicit --strategy queue).

        Exit codes: 0 all written, 1 some inputs failed or conflicted, 64 usage error \
        (bad flag or value, unusable output directory, an input named on the command \
        line missing or unreadable, bad - list, no images found), \
        69 required resource unavailable or not immediately available under \
        --strategy fail, another process running the same job or shard, or a slot \
        folder that is not yours alone, 75 cancelled or expired (resumable).
        """
    )

    @Argument(help: "PNG, JPEG or WebP files, directories, or - for a list of paths on stdin.")
    var inputs: [String]

    @Flag(name: [.customShort("0"), .customLong("null")],
          help: "The - list is NUL-separated (find -print0, xargs -0), not one path per line.")
    var nullSeparated = false

    @Option(name: [.short, .long], help: "The output directory (created if missing).")
    var output: String?

    @Flag(name: .customLong("in-place"),
          help: "Replace each input by its output (as mogrify does), atomically, once the output is complete and decodes back, keeping its mode, owner, group and extended attributes; the journal is ./.kiln.")
    var inPlace = false

    @Option(help: "Where to render: auto, gpu, vulkan or cpu.")
    var device: DevicePreference = .auto

    // Optional, so the help states the default in words once (ArgumentParser would append the number).
    @Option(parsing: .unconditional, help: "Images processed at once, at least 1 (default: the number of cores).",
            transform: NumberArgument.wholeNumber)
    var jobs: Int?

    // Unconditional: a text may start with a dash (`--title -x` said "Missing value").
    @Option(parsing: .unconditional, help: "The title shown while exporting (default, as for an empty text: \"Exporting N images\").")
    var title: String?

    @Option(parsing: .unconditional, help: "The subtitle shown while exporting, before the device, which is always named (default, as for an empty text: the operations, format and level).")
    var subtitle: String?

    /// `--title` and `--subtitle` as given, an empty or blank text (a script's unset variable) as none: it showed an
    /// empty title, and "Holiday —  · CPU".
    private var shownTitles: (title: String?, subtitle: String?) {
        func given(_ text: String?) -> String? { text.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 } }
        return (given(title), given(subtitle))
    }

    @Option(name: .customLong("max-pixels"), parsing: .unconditional, help: ArgumentHelp("The most pixels of any image a job reads or makes (inputs, intermediates, outputs), \(ParameterRanges.pixels.text); larger inputs are rejected from their header, before decoding.",
        discussion: "The default, 1000000000 (a gigapixel), bounds time, not memory: images stream in strips (memory follows width; see --memory), and a gigapixel takes about a minute. It refuses decompression bombs, small files declaring huge images, before any work."),
            transform: NumberArgument.wholeNumber)
    var maxPixels: Int = RenderPipeline.defaultMaxPixels

    @Flag(help: "Make every output again, replacing what exists: outputs made otherwise, and those this same work made, which are skipped without it (never inputs).")
    var overwrite = false

    @Flag(help: "Descend into subdirectories of directory inputs.")
    var recursive = false

    @Flag(name: .customLong("keep-journal"),
          help: "Keep OUTPUT/.kiln (the job's journal) after a run that exits 0; by default it is removed.")
    var keepJournal = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Export only shard K of N (K from 0, e.g. 2/4): every shard plans the same inputs and takes a deterministic share, balanced by pixels; shards share --output, each with its own journal. auto takes it from SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT or JOB_COMPLETION_INDEX/KILN_SHARD_COUNT. The same command again continues the shard.", valueName: "K/N|auto"))
    var shard: String?

    @OptionGroup(title: "Output format, metadata and operations (operations apply in the order above, not the order given)")
    var render: OperationOptions

    @OptionGroup(title: "Running")
    var settings: RunSettings

    func validate() throws {
        guard (output != nil) != inPlace else {
            throw ValidationError(inPlace ? "--in-place writes over the inputs; it takes no --output"
                                          : "missing --output <dir> (or --in-place to replace the inputs)")
        }
        guard !inPlace || !overwrite else { throw ValidationError("--in-place replaces the inputs; --overwrite does not apply") }
        // `-o -` made a folder named `-` where vips and ImageMagick write to standard output; an empty value said
        // "cannot create directory : No such file or directory".
        if output == "-" {
            throw ValidationError("--output names a folder, which kiln writes images into; it writes none to standard "
                                  + "output (-). For a folder named -, write ./-")
        }
        // Blank too (a script's `-o "$OUT "`): a folder named by spaces alone was made.
        if output?.allSatisfy(\.isWhitespace) == true {
            throw ValidationError("--output is \(output?.isEmpty == true ? "empty" : "blank"); it names the folder to write into")
        }

        // Standard input is read once: a second `-` read nothing, and -0 with no `-` changed nothing, both unsaid.
        guard inputs.count(where: { $0 == "-" }) <= 1 else {
            throw ValidationError("- is given more than once; standard input is one list, read once")
        }
        guard !nullSeparated || inputs.contains("-") else {
            throw ValidationError("-0 (--null) says how a - list on standard input is separated, and no - is given")
        }
        guard jobs ?? 1 >= 1 else { throw ValidationError("--jobs must be at least 1") }
        guard ParameterRanges.pixels.bounds.contains(maxPixels) else {
            throw ValidationError("--max-pixels must be \(ParameterRanges.pixels.text), not \(maxPixels)")
        }
        _ = try shardSpec()
    }

    /// `--shard` parsed (nil without it); a bad value is a usage error (64) naming the reason.
    private func shardSpec() throws -> ShardSpec? {
        guard let shard else { return nil }
        do {
            return try ShardSpec.parse(shard)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() async throws {
        StartSignals.begin()
        let reporter = settings.makeReporter()
        // In place, the job's folder (journal, lock) is where kiln runs: `kiln resume .` continues it.
        var options = ExportOptions(inputs: inputs, outputDirectory: output ?? ".")
        options.inPlace = inPlace
        let planNotes: [String]
        do {
            (options.plan, planNotes) = try render.resolve(maxPixels: maxPixels)
        } catch {
            throw reporter.refusal("\(error)", KilnExitCode.usage)
        }
        guard !inPlace || options.plan.output.format == .same else {
            throw reporter.refusal("--in-place keeps each input's name and format; --format (or a recipe's "
                                   + "output.format) does not apply", KilnExitCode.usage)
        }
        options.overwrite = overwrite
        options.recursive = recursive
        options.maxPixels = maxPixels
        options.jobs = jobs ?? ExportOptions.defaultJobs
        do {
            try OutputSafety.check(options)
            try NamedInputs.check(inputs)
        } catch {
            throw reporter.refusal("\(error)", KilnExitCode.usage)
        }
        // `auto`'s discovery, in a child process, runs while the inputs are scanned.
        if device == .auto { DeviceProbe.begin() }
        var collector = InputCollector(options: options)
        collector.nullSeparated = nullSeparated
        let scan: InputScan
        do {
            scan = try collector.scan()
        } catch {
            throw reporter.refusal("\(error)", KilnExitCode.usage)
        }
        var items = scan.items
        let ignored = scan.ignored
        guard !items.isEmpty else {
            // A list of folders alone: name their files (find DIR -type f -print0), or the folders as arguments.
            throw reporter.refusal(noInputsMessage(ignored) + (Self.listedFoldersNote(scan.listedFolders).first.map {
                "; \($0); or name the folders as arguments"
            } ?? ""), KilnExitCode.usage)
        }
        if !inPlace {
            // Names too long for the output's file system fail here, before any decode (see NameLimits).
            let marked: Int
            (items, marked) = NameLimits(outputDirectory: options.outputDirectory).marking(items)
            if marked == items.count, let first = items.first, let problem = first.problem {
                // Nothing could be written: a usage error, and no empty folder made for it.
                throw reporter.refusal("cannot export \(first.input): \(problem); nothing was created",
                                       KilnExitCode.usage)
            }
        }
        do {
            // In every output's provenance, and resume works with the same bytes or not at all (ResumeCommand checks them).
            options.plan.files = try FileFingerprint.of(options.plan)
        } catch {
            throw reporter.refusal("\(error)", KilnExitCode.usage)
        }
        var record = JobRecord(id: Self.newJobID(), options: options, device: device.rawValue,
                               title: shownTitles.title, subtitle: shownTitles.subtitle, items: items)
        record.keepJournal = keepJournal
        if let spec = try shardSpec() {
            // Every shard computes the whole plan and keeps its part: no coordinator, the same split everywhere.
            let (share, shardRecord) = ShardPlan.share(of: items, for: spec)
            record.items = share
            record.shard = shardRecord
            record.title = shownTitles.title ?? spec.title(images: share.count)
        }
        try await JobRunner(record: record, resuming: false, settings: settings, reporter: reporter,
                            ignored: ignored, notes: Self.unusedFormatOptions(options.plan.output, given: render,
                                                                             items: items) + Self.epochNote + planNotes
                                + Self.repeatNote(scan.repeated) + imagelessNotes(scan.imagelessFolders)
                                + Self.listedFoldersNote(scan.listedFolders)).run()
    }

    /// Folders a `-` list named, passed over: said once.
    static func listedFoldersNote(_ folders: [String]) -> [String] {
        guard let first = folders.first else { return [] }
        let others = folders.count == 1 ? "" : " (and \(folders.count - 1) more)"
        return ["\(first)\(others) in the - list \(folders.count == 1 ? "is a folder" : "are folders"), passed over: a list "
                + "names files (find … -type f), and the images in a folder are exported where the list names them"]
    }

    /// Inputs named more than once, each exported once: said, as `cp` says of a source named twice.
    static func repeatNote(_ repeated: [String]) -> [String] {
        guard let first = repeated.first else { return [] }
        let others = repeated.count == 1 ? "" : " (and \(repeated.count - 1) more)"
        return ["\(first)\(others) names a file named before (overlapping arguments): each file is exported once"]
    }

    /// Under `--format same`, each format option that no output of the job takes (a JPEG
    /// option where no input is a JPEG, …), named as given (`--quality`, or `output.quality (recipe r.json)`):
    /// it would change nothing, silently. With `--format` named, such options are refused instead
    /// (``OperationOptions``).
    static func unusedFormatOptions(_ output: OutputSettings, given flags: OperationOptions, items: [ExportItem]) -> [String] {
        guard output.format == .same else { return [] }
        // By the outputs' names (under --in-place the inputs' own: .jpeg, .JPG …).
        let written = Set(items.filter { $0.problem == nil }.compactMap(\.outputFormat))
        let jpeg = written.contains(.jpeg), webp = written.contains(.webp), png = written.contains(.png)
        let recipe = flags.recipe.map { " (recipe \($0))" } ?? ""
        func name(_ key: String, flag: Bool) -> String { flag ? "--\(key)" : "output.\(key)\(recipe)" }
        func note(_ names: [String], _ formats: String) -> String {
            let list = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " and " + names.last!
            return "\(list) \(names.count == 1 ? "applies" : "apply") to \(formats) outputs, and this job writes none "
                + "(--format same keeps each input's format)"
        }
        var notes: [String] = []
        if !png && flags.level != nil { notes.append(note(["--level"], "PNG")) }
        if !jpeg && !webp && output.quality != nil { notes.append(note([name("quality", flag: flags.quality != nil)], "JPEG and WebP")) }
        let jpegOnly = (output.progressive ? [name("progressive", flag: flags.progressive)] : [])
            + (output.subsample != nil ? [name("subsample", flag: flags.subsample != nil)] : [])
        if !jpeg && !jpegOnly.isEmpty { notes.append(note(jpegOnly, "JPEG")) }
        let webpOnly = (output.lossless ? [name("lossless", flag: flags.lossless)] : [])
            + (output.effort != nil ? [name("effort", flag: flags.effort != nil)] : [])
        if !webp && !webpOnly.isEmpty { notes.append(note(webpOnly, "WebP")) }
        if !jpeg && output.background != nil {
            notes.append(note([name("background", flag: flags.background != nil)], "JPEG") .replacingOccurrences(
                of: "to JPEG outputs,", with: "to JPEG outputs (what their alpha is flattened onto),"))
        }
        return notes
    }

    /// `SOURCE_DATE_EPOCH` set to something other than whole seconds since 1970 (a negative value, a fraction,
    /// a word): it is not used (outputs' time stamps say when the job started), and that is said.
    static var epochNote: [String] {
        guard let value = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"], ExportOptions.sourceDateEpoch == nil
        else { return [] }
        return ["SOURCE_DATE_EPOCH=\(value) is not a whole number of seconds since 1970, so it is not used: time stamps "
                + "say when the job started"]
    }

    /// Each folder named as an input that gave no image, while others did: "photos/old: a folder named as an input,
    /// with no image kiln reads in it (subfolders are searched only with --recursive)".
    private func imagelessNotes(_ folders: [String]) -> [String] {
        let hint = recursive ? "" : " (subfolders are searched only with --recursive)"
        return folders.map { "\($0): a folder named as an input, with no image kiln reads in it\(hint)" }
    }

    /// Why nothing was found, and where to look instead; what the scans passed over, if anything.
    private func noInputsMessage(_ ignored: IgnoredFiles) -> String {
        // Only a list was given: what directories give is beside the point.
        if inputs.allSatisfy({ $0 == "-" }) {
            return "no images to export: the list on standard input named no files"
                + (nullSeparated ? "" : " (one path per line; -0 for a NUL-separated list)")
        }
        let hint = recursive ? "" : "; subdirectories are searched only with --recursive"
        return "no images to export in \(inputs.joined(separator: " ")): directories give their *.png, *.jpg, *.jpeg, *.jpe, *.jfif and *.webp files "
            + "(any case, hidden ones left out)\(hint)" + (ignored.summary.map { "; \($0)" } ?? "")
    }

    /// A short unique job id (time + random), also the task identifier suffix.
    private static func newJobID() -> String {
        String(Int(Date().timeIntervalSince1970), radix: 36) + "-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
    }
}

extension DevicePreference: ExpressibleByArgument {}
