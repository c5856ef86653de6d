import Export
import Foundation
import Synchronization

/// Human output on standard error: failures and warnings as lines, and — on a
/// terminal, in `bar` mode — one progress line redrawn in place at most ten
/// times a second, ending with a summary line.
final class TextReporter: ExportReporter {
    private let err = OutputStream.standardError
    private let showBar: Bool
    private let quiet: Bool
    private let state = Mutex(State())

    private struct State {
        var device = ""
        var lastDraw: ContinuousClock.Instant?
        var barVisible = false
    }

    /// `showBar`: draw the live line; `quiet`: only failures and warnings.
    init(showBar: Bool, quiet: Bool) {
        self.showBar = showBar
        self.quiet = quiet
    }

    func start(total: Int, device: String) {
        state.withLock { $0.device = device }
        if !quiet && !showBar { err.write("kiln: exporting \(total) images on \(device)\n") }
    }

    func file(_ result: FileResult) {
        guard result.status == .failed else { return }
        printLine("kiln: \(result.input): \(result.error ?? "failed")")
    }

    func warning(_ message: String) {
        printLine("kiln: warning: \(message)")
    }

    func tick(_ counts: ExportJob.Counts, total: Int) {
        guard showBar else { return }
        let now = ContinuousClock.now
        state.withLock { s in
            if let last = s.lastDraw, now - last < .milliseconds(100) { return }
            s.lastDraw = now
            s.barVisible = true
            err.write("\r\u{1B}[2K" + barLine(counts, total: total, device: s.device))
        }
    }

    func end(_ counts: ExportJob.Counts, total: Int, exitCode: Int32) {
        clearBar()
        guard !quiet else { return }
        var summary = "kiln: \(counts.written) written, \(counts.skipped) skipped, \(counts.failed) failed"
        if exitCode == 75 { summary += " — stopped; run `kiln resume` to finish" }
        err.write(summary + "\n")
    }

    private func printLine(_ text: String) {
        state.withLock { s in
            if s.barVisible { err.write("\r\u{1B}[2K") }
            s.barVisible = false
            s.lastDraw = nil
        }
        err.write(text + "\n")
    }

    private func clearBar() {
        state.withLock { s in
            if s.barVisible { err.write("\r\u{1B}[2K") }
            s.barVisible = false
        }
    }

    private func barLine(_ counts: ExportJob.Counts, total: Int, device: String) -> String {
        let width = err.columns ?? 80
        let fraction = total == 0 ? 1 : Double(counts.completed) / Double(total)
        let percent = String(format: "%3d%%", Int(fraction * 100))
        var tail = " \(percent) \(counts.completed)/\(total)"
        if counts.failed > 0 { tail += " · \(counts.failed) failed" }
        tail += " · \(device)"
        let barWidth = max(10, min(40, width - tail.count - 4))
        let filled = Int(fraction * Double(barWidth))
        let line = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "]" + tail
        return String(line.prefix(width - 1))
    }
}
