import Foundation
import Locking
import Render

/// Everything that decides what an export produces and how it runs.
///
/// Options are plain values so that a job can be described, recorded in the
/// journal, and re-run by `kiln resume` with exactly the same meaning.
public struct ExportOptions: Sendable, Equatable, Codable {
    /// Files or directories to export; `-` reads newline-separated paths from standard input.
    public var inputs: [String]
    /// The output directory; outputs mirror each input's relative path under it.
    public var outputDirectory: String
    /// The operations and output settings.
    public var plan = ExportPlan()
    /// Make every output again, replacing what exists, made otherwise or by this same work (never inputs: see
    /// ``OutputSafety``).
    public var overwrite: Bool = false
    /// Descend into subdirectories of directory inputs.
    public var recursive: Bool = false
    /// Images with more pixels than this are rejected before any large allocation.
    public var maxPixels: Int = RenderPipeline.defaultMaxPixels
    /// How many images are processed at once.
    public var jobs: Int = ExportOptions.defaultJobs
    /// Replace each input by its output (`--in-place`); `outputDirectory` then only holds the journal.
    public var inPlace: Bool = false
    /// When the job was started (seconds since 1970, UTC): the time an output's
    /// tIME chunk states. Recorded, so a resumed job writes the same bytes;
    /// `SOURCE_DATE_EPOCH` sets it for reproducible outputs.
    public var started: Int64 = ExportOptions.now

    /// `SOURCE_DATE_EPOCH` when set (the reproducible-builds convention), else the current time.
    public static var now: Int64 { sourceDateEpoch ?? Int64(Date().timeIntervalSince1970) }

    /// `SOURCE_DATE_EPOCH` when it holds whole seconds since 1970 (0 included); nil when unset or another value.
    public static var sourceDateEpoch: Int64? {
        ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"].flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil }
    }

    /// One job per online core.
    public static var defaultJobs: Int { CPUThreads.cores }

    /// Options with defaults for everything but the inputs and output directory.
    public init(inputs: [String], outputDirectory: String) {
        self.inputs = inputs
        self.outputDirectory = outputDirectory
    }

    private enum CodingKeys: String, CodingKey {
        case inputs, outputDirectory, plan, overwrite, recursive, maxPixels, jobs, inPlace, started
    }

    /// Decodes options, giving fields that journals of older versions lack their defaults.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        inputs = try c.decode([String].self, forKey: .inputs)
        outputDirectory = try c.decode(String.self, forKey: .outputDirectory)
        plan = try c.decodeIfPresent(ExportPlan.self, forKey: .plan) ?? ExportPlan()
        overwrite = try c.decodeIfPresent(Bool.self, forKey: .overwrite) ?? false
        recursive = try c.decodeIfPresent(Bool.self, forKey: .recursive) ?? false
        maxPixels = try c.decodeIfPresent(Int.self, forKey: .maxPixels) ?? RenderPipeline.defaultMaxPixels
        jobs = try c.decodeIfPresent(Int.self, forKey: .jobs) ?? Self.defaultJobs
        inPlace = try c.decodeIfPresent(Bool.self, forKey: .inPlace) ?? false
        started = try c.decodeIfPresent(Int64.self, forKey: .started) ?? Self.now
    }
}
