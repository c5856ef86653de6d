import Foundation
import ImageCore
import Render

/// What made an output: its input as it was (size and modification time) and
/// the plan applied to it (operations and compression level, as a digest).
/// The same input under the same plan makes the same bytes, so an output whose
/// recorded provenance matches the work at hand is that work, already done.
public struct Provenance: Codable, Sendable, Equatable {
    /// Size of the input in bytes when it was read.
    public var inputSize: Int
    /// Modification time of the input, in nanoseconds since 1970.
    public var inputModified: Int
    /// Digest of the plan (``digest(of:)``).
    public var plan: String

    /// The provenance of exporting the input at version `input` (its `fstat` where it was
    /// opened, else its `stat`) under the plan with digest `plan`.
    init(input: FileVersion, plan: String) {
        inputSize = input.size
        inputModified = input.modified
        self.plan = plan
    }

    /// The digest of `plan` as it bears on an output written in `format`: the level only for a PNG, each format
    /// option only for its format, defaults said (``OutputSettings/bearing(on:)``).
    static func digest(of plan: ExportPlan, writing format: ImageFormat) -> String {
        var plan = plan
        plan.output = plan.output.bearing(on: format)
        if format != .png { plan.level = 0 }
        return digest(of: plan)
    }

    /// A short digest of a plan: CRC-32 of its JSON with sorted keys (the whole plan: what kiln recorded before
    /// ``digest(of:writing:)``, still taken as this work's).
    public static func digest(of plan: ExportPlan) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes = (try? encoder.encode(plan)).map { [UInt8]($0) } ?? []
        return String(CRC32.checksum(bytes), radix: 16)
    }

    /// Why an output made as `self` is not the work described by `wanted`, in a few words.
    func difference(to wanted: Provenance) -> String {
        plan != wanted.plan ? "it was made with other options (operations, format and its settings, level, metadata, colour or autorotation) or with other bytes in a watermark or profile file they name" : "its input changed since it was made"
    }
}
