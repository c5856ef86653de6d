import Foundation

/// One worker's share of a job split across processes or machines: shard
/// `index` of `count`, counted from 0 as Kubernetes' `JOB_COMPLETION_INDEX`
/// and Slurm's `SLURM_ARRAY_TASK_ID` are. Written `K/N` on the command line,
/// `K-of-N` as the name of its journal folder.
public struct ShardSpec: Codable, Sendable, Hashable, CustomStringConvertible {
    /// This shard, `0..<count`.
    public var index: Int
    /// How many shards the job has.
    public var count: Int

    /// The largest shard count accepted: far beyond any array or Job, small enough that status stays readable.
    public static let maxCount = 100_000

    /// Shard `index` of `count` (not checked: see ``parse(_:environment:)``).
    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// `K/N`, as given on the command line.
    public var description: String { "\(index)/\(count)" }

    /// `K-of-N`: the shard's folder under `OUTPUT/.kiln/shards/`.
    public var folderName: String { "\(index)-of-\(count)" }

    /// The title a run of this shard shows without `--title`: "Exporting 50 images (shard 0/4)".
    public func title(images: Int) -> String {
        JobRecord.defaultTitle(images: images) + " (shard \(self))"
    }

    /// Parses `K/N` (`0 ≤ K < N`), or `auto`: the shard an array engine gives this
    /// process through the environment (see ``fromEnvironment(_:)``).
    public static func parse(_ text: String,
                             environment: [String: String] = ProcessInfo.processInfo.environment) throws(ShardSpecError) -> ShardSpec {
        if text == "auto" { return try fromEnvironment(environment) }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw .malformed(text) }
        // Digits only: Int("+1") and Int(" 1") would pass, and a spec is written by scripts that should be exact.
        func number(_ part: Substring) -> Int? {
            part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber) && !part.isEmpty ? Int(part) : nil
        }
        if parts[0].hasPrefix("-") || parts[1].hasPrefix("-") { throw .negative(text) }
        guard let index = number(parts[0]), let count = number(parts[1]) else { throw .malformed(text) }
        guard count >= 1 else { throw .noShards(text) }
        guard count <= maxCount else { throw .tooMany(text) }
        guard index < count else { throw .indexOutOfRange(text) }
        return ShardSpec(index: index, count: count)
    }

    /// The shard an array engine assigned through the environment:
    /// - Slurm job arrays: `SLURM_ARRAY_TASK_ID` less `SLURM_ARRAY_TASK_MIN` of `SLURM_ARRAY_TASK_COUNT`
    ///   (so `--array=1-8` works as well as `--array=0-7`; a stepped array such as `0-15:2` is refused);
    /// - Kubernetes Indexed Jobs: `JOB_COMPLETION_INDEX` of `KILN_SHARD_COUNT` (Kubernetes does not pass
    ///   the number of completions, so the manifest sets it; `--shard $(JOB_COMPLETION_INDEX)/N` in the
    ///   container's args works too).
    /// Slurm's variables are read first: a Kubernetes pod inside a Slurm task is not a case to guess at.
    public static func fromEnvironment(_ environment: [String: String]) throws(ShardSpecError) -> ShardSpec {
        let slurm = (environment["SLURM_ARRAY_TASK_ID"], environment["SLURM_ARRAY_TASK_COUNT"])
        // One of the two alone (a Slurm before 17.11, a script setting one by hand): named, as Kubernetes' below.
        if (slurm.0 == nil) != (slurm.1 == nil) {
            let (set, unset) = slurm.0 == nil ? ("SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_ID")
                : ("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT")
            throw .environment("\(set) is set but \(unset) is not (a Slurm job array sets both; or give --shard K/N)")
        }
        if let id = slurm.0, let count = slurm.1 {
            guard let id = Int(id), let count = Int(count) else { throw .environment("SLURM_ARRAY_TASK_ID/COUNT are not numbers") }
            // Said when set but no number (before, taken as unset: a step of "2x" ran as no step).
            for name in ["SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP"] {
                if let value = environment[name], Int(value) == nil { throw .environment("\(name)=\(value) is not a number") }
            }
            let first = environment["SLURM_ARRAY_TASK_MIN"].flatMap(Int.init) ?? 0
            // Slurm says the step and the last index: an array whose indices are not `first`…`first + count - 1`
            // (`--array=1-7:2`, `--array=0,3,5`) would run some shards twice and others never (tasks 1 and 3 of
            // 1-7:2 ran as shards 0/4 and 2/4, 5 and 7 were refused, and half the images were never exported).
            let step = environment["SLURM_ARRAY_TASK_STEP"].flatMap(Int.init) ?? 1
            let last = environment["SLURM_ARRAY_TASK_MAX"].flatMap(Int.init) ?? first + count - 1
            guard step == 1, last - first + 1 == count else {
                throw .environment("Slurm gives an array of \(count) tasks from \(first) to \(last)"
                                   + (step == 1 ? "" : " in steps of \(step)")
                                   + ": an array that is not a contiguous range of indices (such as --array=0-\(count - 1)) cannot be split into shards")
            }
            // A one-task array numbered other than 0 is what resubmitting one task of a larger array makes
            // (`sbatch --array=5`): taken as shard 0/1, it exported the whole job as a split of its own.
            guard count > 1 || first == 0 else {
                throw .environment("Slurm gives an array of one task, numbered \(first): one task of a larger array "
                                   + "submitted again cannot say its shard. Submit the whole range again (its finished "
                                   + "shards end at once), or give that task's shard, --shard K/N: K is \(first) less "
                                   + "the first index of that array, N its number of tasks (task \(first) of --array=1-8 "
                                   + "is \(max(first - 1, 0))/8)")
            }
            let spec = "\(id - first)/\(count)"
            do {
                return try parse(spec, environment: [:])
            } catch {
                throw .environment("Slurm gives task \(id) (array from \(first)) of \(count), shard \(spec): \(error.reason)")
            }
        }
        if environment["JOB_COMPLETION_INDEX"] == nil, environment["KILN_SHARD_COUNT"] != nil {
            throw .environment("KILN_SHARD_COUNT is set but JOB_COMPLETION_INDEX is not (an Indexed Job sets it; or give "
                               + "--shard K/N)")
        }
        if let index = environment["JOB_COMPLETION_INDEX"] {
            guard let count = environment["KILN_SHARD_COUNT"] else {
                throw .environment("JOB_COMPLETION_INDEX is set but KILN_SHARD_COUNT is not (set it to the Job's completions)")
            }
            do {
                return try parse("\(index)/\(count)", environment: [:])
            } catch {
                throw .environment("JOB_COMPLETION_INDEX=\(index), KILN_SHARD_COUNT=\(count): \(error.reason)")
            }
        }
        throw .environment("neither SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (a Slurm array) nor "
                           + "JOB_COMPLETION_INDEX and KILN_SHARD_COUNT (a Kubernetes Indexed Job) are set")
    }
}

/// Why a `--shard` value was refused (a usage error: exit 64).
public enum ShardSpecError: Error, CustomStringConvertible, Equatable {
    /// Not of the form `K/N` with decimal numbers.
    case malformed(String)
    /// A negative number.
    case negative(String)
    /// `N` is 0.
    case noShards(String)
    /// `N` above ``ShardSpec/maxCount``.
    case tooMany(String)
    /// `K` is not below `N`.
    case indexOutOfRange(String)
    /// `auto` could not find a shard in the environment.
    case environment(String)

    /// The reason alone, without the `--shard` prefix.
    public var reason: String {
        switch self {
        case .malformed(let s): return "\"\(s)\" is not K/N with K and N whole numbers (e.g. 0/4)"
        case .negative(let s): return "\"\(s)\" has a negative number; shards count from 0"
        case .noShards(let s): return "\"\(s)\" asks for 0 shards; N must be at least 1"
        case .tooMany(let s): return "\"\(s)\" asks for more than \(ShardSpec.maxCount) shards"
        case .indexOutOfRange(let s):
            let count = s.split(separator: "/").last.map(String.init) ?? "N"
            return "\"\(s)\": K must be 0…N-1 (shards count from 0, as JOB_COMPLETION_INDEX and SLURM_ARRAY_TASK_ID do), "
                + "so at most \(max(0, (Int(count) ?? 1) - 1))/\(count)"
        case .environment(let why): return "auto: \(why)"
        }
    }

    public var description: String { "--shard " + reason }
}
