import Compute
import ContinuedProcessing
import Export
import Foundation
import Locking

/// The NDJSON event stream of SPEC §5 on standard output: `start`, one `ignored` per file the folder
/// scans passed over, `progress` (at most twice a second), one `file` per input, `warning`, `stopping`;
/// `error` when the job cannot start or go on; and `end` last, whatever the exit.
///
/// A file passed over is an `ignored` event, not a `skipped` one: `"status":"skipped"` already
/// means, in a `file` event, an input whose output this same work had made before; a script
/// counting skips must not count files that were never inputs.
final class JSONReporter: ExportReporter {
    private let out = OutputStream.standardOutput
    private let lastProgress = Locked<ContinuousClock.Instant?>(nil)
    private static let progressInterval = Duration.milliseconds(500)

    func start(total: Int, device: String, title: String, subtitle: String, memory: Int, ignored: IgnoredFiles) {
        var line = JSONLine(event: "start")
        line.add("total", .int(total))
        line.add("device", .string(device))
        line.add("memory", .int(memory))
        line.add("title", .string(title))
        line.add("subtitle", .string(subtitle))
        // Counted in `start`, not `end`: the scan is over before the job starts, and a script learns
        // at once what the job will not export.
        line.add("ignoredImages", .int(ignored.images))
        line.add("ignoredOther", .int(ignored.others))
        emit(line)
        for file in ignored.files {
            var line = JSONLine(event: "ignored")
            line.add("path", .string(file.path))
            line.add("reason", .string(file.reason))
            if let format = file.format { line.add("format", .string(format)) }
            emit(line)
        }
    }

    func queued(position: Int, waitingFor: [MachineSlots.Holder]) {
        var line = JSONLine(event: "queued")
        line.add("position", .int(position))
        // Flat, as every event: the first job holding a slot, and how many do.
        let first = waitingFor.first
        line.add("waitingForPid", first.map { .int(Int($0.pid)) } ?? .null)
        line.add("waitingForOutput", first.map { .string($0.output) } ?? .null)
        line.add("waitingForTitle", first.map { .string($0.title) } ?? .null)
        line.add("waitingForJobs", .int(waitingFor.count))
        emit(line)
    }

    func stopping(reason: ExpirationReason, inFlight: Int, grace: Double) {
        var line = JSONLine(event: "stopping")
        line.add("reason", .string(reason.rawValue))
        line.add("message", .string(reason.sentence))
        line.add("inFlight", .int(inFlight))
        line.add("grace", .double(grace))
        emit(line)
    }

    func file(_ result: FileResult) {
        var line = JSONLine(event: "file")
        line.add("input", .string(result.input))
        line.add("output", .string(result.output))
        line.add("status", .string(result.status.rawValue))
        if let error = result.error { line.add("error", .string(error)) }
        emit(line)
    }

    func warning(_ message: String) {
        var line = JSONLine(event: "warning")
        line.add("message", .string(message))
        emit(line)
    }

    func tick(_ snapshot: ProgressSnapshot) {
        let now = ContinuousClock.now
        let due = lastProgress.withLock { last -> Bool in
            if !snapshot.isLast, let last, now - last < Self.progressInterval { return false }
            last = now
            return true
        }
        guard due else { return }
        var line = JSONLine(event: "progress")
        line.add("completed", .int(snapshot.counts.completed))
        line.add("total", .int(snapshot.total))
        line.add("failed", .int(snapshot.counts.failed))
        line.add("fraction", .double((snapshot.fraction * 10_000).rounded() / 10_000))
        // As the bar shows them: its MPix/s in pixels, its ETA in whole seconds (null while it shows none).
        line.add("pixelsPerSecond", .int(Int((snapshot.megapixelsPerSecond * 1e6).rounded())))
        line.add("etaSeconds", snapshot.remaining.map { .int(Int($0.seconds.rounded())) } ?? .null)
        line.add("paused", .bool(snapshot.paused))
        emit(line)
    }

    func end(_ counts: ExportJob.Counts, earlier: ExportJob.Counts, total: Int, exitCode: Int32, traffic: DeviceTraffic) {
        // What this run did; a resume adds how many items earlier runs had finished.
        let now = counts.since(earlier)
        var line = JSONLine(event: "end")
        line.add("written", .int(now.written))
        line.add("skipped", .int(now.skipped))
        line.add("failed", .int(now.failed))
        line.add("conflicts", .int(now.conflicts))
        line.add("earlier", .int(earlier.completed))
        line.add("exitCode", .int(Int(exitCode)))
        // Bytes handed to the render device and back, and command buffers submitted (0 on the CPU).
        line.add("deviceBytesUp", .int(traffic.bytesUp))
        line.add("deviceBytesDown", .int(traffic.bytesDown))
        line.add("deviceSubmissions", .int(traffic.submissions))
        emit(line)
    }

    func error(_ message: String, reasonCode: String?) {
        // People read standard error even when a script reads the stream.
        OutputStream.standardError.write("kiln: \(TextReporter.visible(message))\n")
        var line = JSONLine(event: "error")
        line.add("message", .string(message))
        if let reasonCode { line.add("reasonCode", .string(reasonCode)) }
        emit(line)
    }

    private func emit(_ line: JSONLine) {
        out.write(line.rendered + "\n")
    }
}
