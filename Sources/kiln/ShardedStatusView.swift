import Export
import Foundation

/// Prints a ``ShardedStatus``: one JSON object for scripts, or a summary line
/// and one line per shard for people.
enum ShardedStatusView {
    /// One JSON object (keys sorted), `"event":"status"` as for a whole job.
    static func json(_ status: ShardedStatus) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(status)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Lines for a terminal.
    static func text(_ status: ShardedStatus, directory: String) -> [String] {
        var lines = ["\(status.state): \(status.completed)/\(status.total) done (\(percent(status.fraction))), "
                     + "\(status.written) written, \(status.skipped) skipped, \(status.failed) failed"
                     + " · \(status.shardCount) shard\(status.shardCount == 1 ? "" : "s")" + rate(status.imagesPerSecond,
                                                                                            status.pixelsPerSecond)]
        for shard in status.shards {
            var line = "  shard \(shard.shard)  \(name(shard.state))  \(shard.completed)/\(shard.total)"
            if shard.state != .notStarted && shard.state != .finished { line += " (\(percent(shard.fraction)))" }
            if shard.failed > 0 { line += ", \(shard.failed) failed" }
            if let pid = shard.pid { line += " · pid \(pid)" + (shard.host.map { " on \($0)" } ?? "") }
            if shard.state == .queued {
                line += " · queued at position \(shard.queuePosition ?? 1), waiting for "
                    + MachineSlots.Holder.describe(shard.waitingFor ?? [])
            }
            lines.append(line)
        }
        if let cancelled = status.cancelled { lines.append("the job was \(cancelled)") }
        lines += status.warnings.map { "warning: \($0)" }
        if status.state == "incomplete" {
            // Under the cancel mark a shard's export command stops at once (exit 75): only a resume lifts the mark.
            lines.append(status.cancelled != nil
                ? "`kiln resume \(directory) --shard K/N` continues a shard not finished (its export command stops at once while the job is cancelled)"
                : "shards not finished continue when their `kiln export … --shard K/N` command runs again "
                    + "(a Job's or an array's retry does it)")
        }
        return lines
    }

    private static func name(_ state: ShardedStatus.State) -> String {
        state == .notStarted ? "not started" : state.rawValue
    }

    private static func percent(_ fraction: Double) -> String { "\(Int(fraction * 100))%" }

    /// " · 0.50 images/s, 12.3 MPix/s", or "" where either is unknown.
    static func rate(_ images: Double?, _ pixels: Double?) -> String {
        guard let images, let pixels else { return "" }
        return String(format: " · %.2f images/s, %.1f MPix/s", images, pixels / 1e6)
    }
}
