import Foundation

/// The probe's command line: `--grace-ms N --cleanup-ms N --step-ms N --steps N
/// --check-ms N --background-file PATH --raise-at-start SIGNAL`.
struct ProbeOptions {
    var grace = Duration.milliseconds(3000)
    var cleanup = Duration.milliseconds(300)
    var step = Duration.milliseconds(50)
    var steps: Int64 = 10_000
    var foregroundCheck = Duration.milliseconds(100)
    /// While this file exists the probe counts as in the background of its terminal.
    var backgroundFile: String?
    /// A signal the probe sends its process (as `kill` does, not `raise`: a thread's own signal stays with the
    /// thread) the moment ``ContinuedProcessing/ProcessLifecycle/start()`` returns.
    var raiseAtStart: Int32?

    init(_ arguments: [String]) {
        var values: [String: String] = [:]
        var iterator = arguments.dropFirst().makeIterator()
        while let name = iterator.next(), let value = iterator.next() {
            values[name] = value
        }
        func milliseconds(_ name: String) -> Duration? { values[name].flatMap(Int.init).map { .milliseconds($0) } }
        grace = milliseconds("--grace-ms") ?? grace
        cleanup = milliseconds("--cleanup-ms") ?? cleanup
        step = milliseconds("--step-ms") ?? step
        steps = values["--steps"].flatMap(Int64.init) ?? steps
        foregroundCheck = milliseconds("--check-ms") ?? foregroundCheck
        backgroundFile = values["--background-file"]
        raiseAtStart = values["--raise-at-start"].flatMap(Int32.init)
    }
}
