import ArgumentParser
import Color
import Foundation
import Export
import ImageCore
import Render

extension Resize.Fit: ExpressibleByArgument {}
extension Resize.Filter: ExpressibleByArgument {}
extension Flip.Axis: ExpressibleByArgument {}
extension Watermark.Position: ExpressibleByArgument {}
extension ColorConversion.Intent: ExpressibleByArgument {}
extension OutputFormat: ExpressibleByArgument {
    /// `--format`'s value as ``OutputFormat/init(named:)`` reads it: any case, `jpg` for JPEG.
    public init?(argument: String) { self.init(named: argument) }
}
extension ChromaSubsampling: ExpressibleByArgument {}

/// The operation flags of SPEC §4.2, `--recipe`, `--level` and the format options of SPEC §5.
///
/// Flags apply in SPEC §4.2's table order (crop, rotate, flip, resize, adjust,
/// blur, sharpen, grayscale, watermark), which is what the same operations
/// listed in that order in a recipe give, byte for byte. A recipe excludes the
/// operation flags; `--level` and each format option, when given, override the recipe's `output` field.
/// Numeric options take the next word as their value unconditionally, so
/// negative numbers need no `=` (`--brightness -0.1`).
struct OperationOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "PNG compression level, \(ParameterRanges.level.text): 0 stored; from 1 to 9 each no faster than the one before and, on photographs, no larger (a noisy or drawn image may come out larger at a higher level: each level is another deflater or filter choice, not more effort of one): 1 ISA-L in segments on every core; 2-9 libdeflate on the whole image at 2-7 for an output of up to 64 MiB of rows (2-3 its level 1, 4-5 its 2, 6 its 3, 7 its 6); zlib at that level in segments at 8-9, and at 3-9 for a larger output; an output under 256 KiB of rows is deflated whole by libdeflate at 1-6, its 10-12 at 7-9 (default 6; overrides a recipe's output.level).",
            transform: NumberArgument.wholeNumber)
    var level: Int?

    @Option(help: "Output format: png, jpeg (or jpg), webp, or same, in any case (default: each output in its input's format, by the input's name, else its content); outputs are named .png, .jpg, .webp (overrides a recipe's output.format).")
    var format: OutputFormat?

    @Option(parsing: .unconditional, help: ArgumentHelp("Lossy quality, 1-100 (JPEG default 85, WebP default 80); with --lossless, how hard libwebp searches for a smaller file (1 fastest, 100 slowest; higher is usually, not always, smaller; the pixels are exact at any value). Overrides a recipe's output.quality.", valueName: "q"),
            transform: NumberArgument.wholeNumber)
    var quality: Int?

    @Flag(help: "Write progressive JPEGs (libjpeg then holds every coefficient of the image: about 3 bytes a pixel).")
    var progressive = false

    @Option(help: "JPEG chroma subsampling: 420 or 444 (default 420 below quality 90, 444 at or above).")
    var subsample: ChromaSubsampling?

    @Flag(help: "Write lossless WebP (under --format same, a lossless WebP input is written lossless without it, unless a quality is given).")
    var lossless = false

    @Option(parsing: .unconditional, help: ArgumentHelp("How hard libwebp works for a smaller WebP, lossy or lossless, 0-6 (cwebp's -m, vips' and sharp's effort): 0 fastest, 6 smallest and slowest (default 4). Overrides a recipe's output.effort.", valueName: "n"),
            transform: NumberArgument.wholeNumber)
    var effort: Int?

    @Option(help: ArgumentHelp("What alpha is flattened onto in a JPEG: white (default), black or #RRGGBB (in the output's colour space).", valueName: "color"))
    var background: String?

    @Flag(help: "Drop metadata (text, EXIF, resolution, …), keeping only what defines the colours (overrides a recipe's output.metadata).")
    var strip = false

    @Option(help: ArgumentHelp(
        "Keep only these kinds of metadata: icc, exif, text, phys, time, other, all or none, comma-separated (default all; overrides a recipe's output.metadata).",
        valueName: "list"))
    var keep: String?

    // Both ways: a recipe's "autorotate": false could not be turned back on from the command line.
    @Flag(inversion: .prefixedNo,
          help: "--no-autorotate leaves each image as stored: its EXIF orientation is not applied and stays in its EXIF (default, --autorotate: turned upright first, the EXIF then saying orientation 1); either overrides a recipe's output.autorotate.")
    var autorotate: Bool?

    @Option(help: ArgumentHelp(
        "Convert every image to this colour profile and tag it: srgb, p3 or an ICC file (default: keep colours and profile as they are).",
        valueName: "srgb|p3|file"))
    var profile: String?

    @Option(help: "Rendering intent of --profile (only with it): perceptual, relative (default, with black-point compensation), saturation or absolute.")
    var intent: ColorConversion.Intent?

    @Option(name: .customLong("input-profile"), help: ArgumentHelp(
        "The profile of inputs that say nothing of their colours (no ICC profile; a PNG's sRGB chunk says sRGB, EXIF's InteropIndex R03 Adobe RGB), for --profile (only with it): srgb (default), p3 or an ICC file.",
        valueName: "srgb|p3|file"))
    var inputProfile: String?

    @Option(help: ArgumentHelp("Apply the operations of a JSON recipe ({\"operations\":[…],\"output\":{\"level\":6}}); the operation flags below (--crop to --watermark-scale) cannot be given with it; the format, metadata and --autorotate/--no-autorotate flags above override its output, and --profile applies as without it.",
                               valueName: "file"))
    var recipe: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Keep the rectangle X,Y,W,H (clipped to the image); X, Y \(ParameterRanges.offset.text), W, H \(ParameterRanges.extent.text).",
                               valueName: "x,y,w,h"))
    var crop: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Rotate clockwise: 90, 180 or 270.", valueName: "degrees"),
            transform: { text in
                // "90.0" had ArgumentParser's bare "invalid" (a recipe takes it), where "45" said what is taken.
                guard let degrees = try NumberArgument.integer(text, flag: "--rotate") else {
                    throw ValidationError("must be 90, 180 or 270")
                }
                return degrees
            })
    var rotate: Int?

    @Option(help: "Mirror: h (left-right) or v (top-bottom).")
    var flip: Flip.Axis?

    @Option(parsing: .unconditional, help: ArgumentHelp("Resize to WxH, Wx or xH (premultiplied alpha); W, H \(ParameterRanges.resize.text).", valueName: "WxH"))
    var resize: String?

    @Option(help: "How --resize meets its box: inside (default), cover, fill (with one side given, every fit is inside).")
    var fit: Resize.Fit?

    @Option(help: "Resampling filter for --resize: lanczos3 (default), bilinear, nearest.")
    var filter: Resize.Filter?

    @Flag(help: "Let --resize enlarge images (by default it only shrinks).")
    var upscale = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Add to every color channel, on a scale where 0 is black and 1 white (0 = none), \(ParameterRanges.brightness.text).", valueName: "f"),
            transform: NumberArgument.decimal)
    var brightness: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Contrast multiplier (1 = none), \(ParameterRanges.factor.text).", valueName: "f"),
            transform: NumberArgument.decimal)
    var contrast: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Saturation multiplier (1 = none), \(ParameterRanges.factor.text).", valueName: "f"),
            transform: NumberArgument.decimal)
    var saturation: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Exposure change in stops (0 = none), \(ParameterRanges.exposure.text): the stored values times 2^stops, not linear light.", valueName: "stops"),
            transform: NumberArgument.decimal)
    var exposure: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Gamma (1 = none; above 1 brightens), \(ParameterRanges.gamma.text).", valueName: "g"),
            transform: NumberArgument.decimal)
    var gamma: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Gaussian blur of this standard deviation in pixels, \(ParameterRanges.sigma.text).", valueName: "sigma"),
            transform: NumberArgument.decimal)
    var blur: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Unsharp mask: amount \(ParameterRanges.amount.text), blur sigma \(ParameterRanges.sigma.text) (default 1), threshold \(ParameterRanges.unit.text) (default 0: differences below it are left alone, up to twice it sharpened in part).",
                               valueName: "amount[,sigma[,threshold]]"))
    var sharpen: String?

    @Flag(help: "Convert to grayscale (Rec. 709 luma).")
    var grayscale = false

    @Option(help: ArgumentHelp("Draw this image (PNG, JPEG or WebP) over each image.", valueName: "file"))
    var watermark: String?

    @Option(help: "Watermark position: tl, tr, bl, br (default), center.")
    var watermarkPosition: Watermark.Position?

    @Option(parsing: .unconditional, help: ArgumentHelp("Watermark opacity \(ParameterRanges.unit.text) (default 1).", valueName: "f"),
            transform: NumberArgument.decimal)
    var watermarkOpacity: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Watermark distance from the edges in pixels, \(ParameterRanges.offset.text) (default 16; none at center).", valueName: "px"),
            transform: NumberArgument.wholeNumber)
    var watermarkMargin: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Watermark width relative to the image's, \(ParameterRanges.scale.text) (default 0.2).", valueName: "f"),
            transform: NumberArgument.decimal)
    var watermarkScale: Double?

    /// The job's render plan, every parameter checked (`Operation.validate`) and
    /// no fixed output size above `maxPixels`, and what the job should say at its start (a recipe's
    /// format options that `--format` made moot); throws a `ValidationError` naming the
    /// flag or the recipe path and the problem (exit 64).
    func resolve(maxPixels: Int) throws -> (plan: ExportPlan, notes: [String]) {
        if let level, !ParameterRanges.level.bounds.contains(level) {
            throw ValidationError("--level must be \(ParameterRanges.level.text), not \(level)")
        }
        var metadata: MetadataSelection?
        if strip { metadata = .strip }
        if let keep {
            guard !strip else { throw ValidationError("--strip and --keep cannot be combined") }
            switch MetadataSelection.parse(keep) {
            case .success(let selection): metadata = selection
            case .failure(let problem): throw ValidationError("--keep: \(problem)")
            }
        }
        // An empty file name ("--recipe \"$R\"" with R unset) is said as such, not as a file that cannot be read.
        for (flag, value) in [("--recipe", recipe), ("--profile", profile), ("--input-profile", inputProfile)]
        where value?.allSatisfy(\.isWhitespace) == true {
            throw ValidationError("\(flag) must not be empty")
        }
        var output = OutputSettings()
        var recipeLevel: Int?
        var plan: ExportPlan
        if let recipe {
            let given = flagsGiven
            guard given.isEmpty else {
                throw ValidationError("--recipe cannot be combined with operation flags (\(given.joined(separator: ", ")))")
            }
            do {
                let loaded = try Recipe.load(contentsOf: recipe)
                plan = ExportPlan(operations: loaded.operations, level: level ?? loaded.output?.level ?? 6,
                                  metadata: metadata ?? loaded.output?.metadata?.selection ?? .all,
                                  autorotate: autorotate ?? loaded.output?.autorotate ?? true)
                output = loaded.output?.settings ?? output
                recipeLevel = loaded.output?.level
            } catch {
                throw ValidationError(error.description)
            }
        } else {
            plan = ExportPlan(operations: try operationsFromFlags(), level: level ?? 6, metadata: metadata ?? .all,
                              autorotate: autorotate ?? true)
        }
        let notes: [String]
        (plan.output, notes) = try outputSettings(over: output, recipeLevel: recipeLevel)
        if let profile {
            let conversion = ColorConversion(target: .init(argument: profile), intent: intent ?? .relative,
                                             inputProfile: inputProfile.map(ColorConversion.Profile.init(argument:)) ?? .srgb)
            do {
                _ = try ColorConverter(conversion)  // both profiles readable and RGB, before the job starts
            } catch {
                throw ValidationError(error.description)
            }
            plan.color = conversion
        } else if intent != nil || inputProfile != nil {
            throw ValidationError("--intent and --input-profile only apply with --profile")
        }
        do throws(RenderError) {
            // Checks every parameter and that watermark files decode, before the job starts.
            try plan.validate(maxPixels: maxPixels)
        } catch {
            if case .invalidParameter(let parameter) = error, recipe == nil {
                throw ValidationError("\(Self.flag(for: parameter)) \(parameter.problem)")
            }
            if case .imageTooLarge(let operation, _, _, _) = error, recipe == nil {
                throw ValidationError("--\(operation): \(error)")
            }
            throw ValidationError(recipe.map { "invalid recipe \($0): \(error)" } ?? error.description)
        }
        return (plan, notes)
    }

    /// `recipe`'s output settings with each format flag given in their place, checked: an option the
    /// chosen format does not take is refused, named as given (the flag, or the recipe's key) — but a
    /// recipe's, where `--format` chose another format than the recipe's, is only said (a recipe is
    /// reused: `SampleData/recipe.json`'s `output.level` with `--format jpeg` was refused).
    private func outputSettings(over recipe: OutputSettings, recipeLevel: Int?) throws -> (OutputSettings, [String]) {
        var output = recipe
        if let format { output.format = format }
        if let quality {
            guard OutputSettings.qualityRange.contains(quality) else {
                throw ValidationError("--quality must be 1-100, not \(quality)")
            }
            output.quality = quality
        }
        if progressive { output.progressive = true }
        if let subsample { output.subsample = subsample }
        if lossless { output.lossless = true }
        if let effort {
            guard OutputSettings.effortRange.contains(effort) else {
                throw ValidationError("--effort must be 0-6, not \(effort)")
            }
            output.effort = effort
        }
        if let background {
            guard let color = RGBColor(parsing: background) else {
                throw ValidationError("--background must be white, black or #RRGGBB, not \(background)")
            }
            output.background = color
        }
        // Each option given, as the user gave it: "--quality", or "output.quality (recipe r.json)".
        func given(_ key: String, flag: Bool, recipe recipeSets: Bool) -> String? {
            flag ? "--\(key)" : recipeSets ? "output.\(key) (recipe \(self.recipe ?? ""))" : nil
        }
        let options: [(formats: [OutputFormat], name: String?)] = [
            ([.jpeg, .webp], given("quality", flag: quality != nil, recipe: recipe.quality != nil)),
            ([.jpeg], given("progressive", flag: progressive, recipe: recipe.progressive)),
            ([.jpeg], given("subsample", flag: subsample != nil, recipe: recipe.subsample != nil)),
            ([.webp], given("lossless", flag: lossless, recipe: recipe.lossless)),
            ([.webp], given("effort", flag: effort != nil, recipe: recipe.effort != nil)),
            ([.jpeg], given("background", flag: background != nil, recipe: recipe.background != nil)),
            ([.png], given("level", flag: level != nil, recipe: recipeLevel != nil)),
        ]
        guard output.format != .same else { return (output, []) }
        let moot = options.filter { $0.name != nil && !$0.formats.contains(output.format) }
        let overridden = format != nil ? moot.filter { !($0.name!.hasPrefix("--")) } : []
        let refused = moot.filter { entry in !overridden.contains { $0.name == entry.name } }
        let notes = overridden.map { "\($0.name!) does not apply to the \(output.format.title) output --format chose" }
        guard refused.isEmpty else {
            let takers = { (formats: [OutputFormat]) in formats.map(\.title).joined(separator: " or ") }
            // "--level applies to PNG output, not JPEG"; "--quality (JPEG or WebP) and --background (JPEG) do not apply to PNG output".
            guard refused.count > 1 else {
                throw ValidationError("\(refused[0].name!) applies to \(takers(refused[0].formats)) output, not \(output.format.title)")
            }
            let names = refused.map { "\($0.name!) (\(takers($0.formats)))" }
            throw ValidationError(names.dropLast().joined(separator: ", ") + " and " + names.last!
                                  + " do not apply to \(output.format.title) output")
        }
        return (output, notes)
    }

    /// The flag that set `parameter`, with the part of its value it names
    /// where the flag takes several: "--watermark-margin", "--crop y".
    private static func flag(for parameter: InvalidParameter) -> String {
        switch (parameter.operation, parameter.key) {
        case ("adjust", let key): "--\(key)"
        case ("blur", _): "--blur"
        case ("rotate", _): "--rotate"
        case ("watermark", "file"): "--watermark"
        case ("watermark", let key): "--watermark-\(key)"
        case (let operation, let key): "--\(operation) \(key)"
        }
    }

    /// The operation flags present, as typed.
    private var flagsGiven: [String] {
        let flags: [(String, Bool)] = [
            ("--crop", crop != nil), ("--rotate", rotate != nil), ("--flip", flip != nil), ("--resize", resize != nil),
            ("--fit", fit != nil), ("--filter", filter != nil), ("--upscale", upscale),
            ("--brightness", brightness != nil), ("--contrast", contrast != nil), ("--saturation", saturation != nil),
            ("--exposure", exposure != nil), ("--gamma", gamma != nil), ("--blur", blur != nil),
            ("--sharpen", sharpen != nil), ("--grayscale", grayscale), ("--watermark", watermark != nil),
            ("--watermark-position", watermarkPosition != nil), ("--watermark-opacity", watermarkOpacity != nil),
            ("--watermark-margin", watermarkMargin != nil), ("--watermark-scale", watermarkScale != nil),
        ]
        return flags.filter(\.1).map(\.0)
    }

    /// The flags' operations in SPEC §4.2's table order.
    private func operationsFromFlags() throws -> [Render.Operation] {
        var operations: [Render.Operation] = []
        if let crop {
            let numbers = try Self.numbers(crop, flag: "--crop", count: 4...4) { try NumberArgument.integer($0, flag: "--crop") }
            operations.append(.crop(Crop(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])))
        }
        if let rotate { operations.append(.rotate(Rotate(degrees: rotate))) }
        if let flip { operations.append(.flip(Flip(axis: flip))) }
        if let resize {
            let (width, height) = try Self.box(resize)
            operations.append(.resize(Resize(width: width, height: height, fit: fit ?? .inside, filter: filter ?? .lanczos3,
                                             upscale: upscale)))
        } else if fit != nil || filter != nil || upscale {
            throw ValidationError("--fit, --filter and --upscale need --resize")
        }
        if [brightness, contrast, saturation, exposure, gamma].contains(where: { $0 != nil }) {
            operations.append(.adjust(Adjust(brightness: brightness ?? 0, contrast: contrast ?? 1, saturation: saturation ?? 1,
                                             exposure: exposure ?? 0, gamma: gamma ?? 1)))
        }
        if let blur { operations.append(.blur(Blur(sigma: blur))) }
        if let sharpen {
            let numbers = try Self.numbers(sharpen, flag: "--sharpen", count: 1...3) { part throws -> Double? in
                do throws(NumberArgument.Problem) {
                    return try NumberArgument.decimal(part)
                } catch .notDecimal {
                    return nil
                } catch {
                    throw ValidationError("--sharpen: '\(part)' is \(error)")
                }
            }
            operations.append(.sharpen(Sharpen(amount: numbers[0], sigma: numbers.count > 1 ? numbers[1] : 1,
                                               threshold: numbers.count > 2 ? numbers[2] : 0)))
        }
        if grayscale { operations.append(.grayscale) }
        if let watermark {
            operations.append(.watermark(Watermark(file: watermark, position: watermarkPosition ?? .br,
                                                   opacity: watermarkOpacity ?? 1, margin: watermarkMargin ?? 16,
                                                   scale: watermarkScale ?? 0.2)))
        } else if watermarkPosition != nil || watermarkOpacity != nil || watermarkMargin != nil || watermarkScale != nil {
            throw ValidationError("--watermark-position, --watermark-opacity, --watermark-margin and --watermark-scale need --watermark")
        }
        return operations
    }

    /// Comma-separated numbers, `count` of them, each read by `parse` (nil: not a number).
    private static func numbers<T>(_ text: String, flag: String, count: ClosedRange<Int>,
                                   _ parse: (String) throws -> T?) throws -> [T] {
        let parts = try text.split(separator: ",", omittingEmptySubsequences: false).map { try parse(String($0)) }
        guard count.contains(parts.count), parts.allSatisfy({ $0 != nil }) else {
            throw ValidationError("\(flag) expects \(count.lowerBound == count.upperBound ? "\(count.lowerBound)" : "\(count.lowerBound) to \(count.upperBound)") comma-separated numbers, not '\(text)'")
        }
        return parts.map { $0! }
    }

    /// `WxH`, `Wx` or `xH`.
    private static func box(_ text: String) throws -> (Int?, Int?) {
        let parts = try text.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { part in
            part.trimmingCharacters(in: .whitespaces).isEmpty ? Optional(Int?.none)
                : try NumberArgument.integer(String(part), flag: "--resize").map { Optional($0) }
        }
        guard parts.count == 2, parts.allSatisfy({ $0 != nil }), parts.contains(where: { $0! != nil }) else {
            throw ValidationError("--resize expects WxH, Wx or xH, not '\(text)'")
        }
        return (parts[0]!, parts[1]!)
    }
}
