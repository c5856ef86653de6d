import Compute
import ContinuedProcessing
import Export
import Foundation
import Locking

/// Human output on standard error. On a terminal in `bar` mode: a two-line
/// display redrawn in place at most ten times a second — title and subtitle,
/// then bar, percent, done/total, failures, throughput, ETA, elapsed, current
/// file and device — fitted to the terminal's width by dropping whole fields
/// (never cutting a number), coloured unless `NO_COLOR`
/// is set, and replaced at the end by one summary line. Failures and warnings
/// print as lines above it. Without the bar (plain lines), those lines, the bar's fields as a line every
/// ``plainInterval`` (a long job written to a log said nothing between its header and its summary), and the summary.
final class TextReporter: ExportReporter {
    private let err = OutputStream.standardError
    private let showBar: Bool
    private let quiet: Bool
    private let color: Bool
    private let state = Locked(State())

    private struct State {
        var device = ""
        var title = ""
        var subtitle = ""
        var status: String?
        var lastDraw: ContinuousClock.Instant?
        var drawnLines = 0
        var last: ProgressSnapshot?
        var started = false
        /// When plain lines last showed the progress (or the job started).
        var lastPlain: ContinuousClock.Instant?
    }

    /// How often plain lines show the progress.
    static let plainInterval = Duration.seconds(10)

    /// `showBar`: draw the live display; `quiet`: only failures and warnings.
    init(showBar: Bool, quiet: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.showBar = showBar
        self.quiet = quiet
        color = environment["NO_COLOR"].map(\.isEmpty) ?? true && environment["TERM"] != "dumb"
    }

    func start(total: Int, device: String, title: String, subtitle: String, memory: Int, ignored: IgnoredFiles) {
        state.withLock {
            $0.started = true
            $0.device = device
            $0.title = title
            $0.subtitle = subtitle
            $0.status = nil
            $0.lastPlain = .now
        }
        if !quiet && !showBar { err.write("kiln: " + Self.visible("\(title) — \(subtitle)") + "\n") }
        // Once per job, above the bar where there is one; not a warning, so --quiet leaves it out.
        if !quiet, let summary = ignored.summary { printLine("kiln: " + summary) }
    }

    func queued(position: Int, waitingFor: [MachineSlots.Holder]) {
        let behind = MachineSlots.Holder.describe(waitingFor)
        state.withLock { $0.status = "queued: position \(position), waiting for \(behind) to finish" }
        if showBar { redraw(force: true) } else if !quiet { err.write("kiln: " + Self.visible("queued at position \(position), waiting for \(behind)") + "\n") }
    }

    func file(_ result: FileResult) {
        switch result.status {
        case .written, .skipped: return
        case .conflict: printLine("kiln: \(result.input): conflict: \(result.error ?? "existing output kept")")
        case .failed: printLine("kiln: \(result.input): \(result.error ?? "failed")")
        }
    }

    func warning(_ message: String) {
        printLine("kiln: warning: \(message)")
    }

    func stopping(reason: ExpirationReason, inFlight: Int, grace: Double) {
        let text = Self.stoppingText(reason: reason.sentence, inFlight: inFlight, grace: grace)
        state.withLock { $0.status = text }
        if showBar { redraw(force: true) } else if !quiet { err.write("kiln: \(text)\n") }
    }

    /// "stopping (cancelled): finishing the 2 images in flight (up to 5 s) · Ctrl-C again stops now".
    static func stoppingText(reason: String, inFlight: Int, grace: Double) -> String {
        let images = inFlight == 1 ? "the image" : "the \(inFlight) images"
        let limit = String(format: "%g", grace)
        let work = inFlight == 0 ? "no image in flight" : "finishing \(images) in flight (up to \(limit) s, then left for resume)"
        return "stopping (\(reason)): \(work) · Ctrl-C again stops now"
    }

    func tick(_ snapshot: ProgressSnapshot) {
        let now = ContinuousClock.now
        let plain = state.withLock { s -> Bool in
            s.last = snapshot
            if !snapshot.stopping, s.status?.hasPrefix("queued") == true { s.status = nil }
            guard !showBar, !quiet, !snapshot.isLast, now - (s.lastPlain ?? now) >= Self.plainInterval else { return false }
            s.lastPlain = now
            return true
        }
        if showBar { redraw(force: false) }
        if plain { err.write("kiln: " + Self.plainLine(snapshot) + "\n") }
    }

    func end(_ counts: ExportJob.Counts, earlier: ExportJob.Counts, total: Int, exitCode: Int32, traffic: DeviceTraffic) {
        let (elapsed, started) = state.withLock { s -> (Duration?, Bool) in
            erase(&s)
            return (s.last?.elapsed, s.started)
        }
        // A job refused before it started has said why; there is nothing to sum up.
        guard !quiet, started else { return }
        err.write("kiln: " + Self.summary(counts, earlier: earlier, total: total, elapsed: elapsed, exitCode: exitCode)
                  + "\n")
    }

    /// "12 written, 0 skipped, 1 failed of 400 in 0:05 · stopped, resumable": how a job ended.
    static func summary(_ counts: ExportJob.Counts, earlier: ExportJob.Counts, total: Int, elapsed: Duration?,
                        exitCode: Int32) -> String {
        let now = counts.since(earlier)
        var summary = "\(now.written) written, \(now.skipped) skipped, \(now.failed) failed"
        if now.conflicts > 0 { summary += ", \(now.conflicts) kept as conflicts (--overwrite replaces them)" }
        if earlier.completed > 0 { summary += " (\(earlier.completed) done by earlier runs)" }
        summary += " of \(total)"
        if let elapsed { summary += " in \(elapsed.clock)" }
        if exitCode == 75 { summary += " · stopped, resumable" }
        return summary
    }

    func error(_ message: String, reasonCode: String?) {
        // The last word before the summary: the display goes and is not drawn again.
        state.withLock { s in
            erase(&s)
            err.write("kiln: \(Self.visible(message))\n")
        }
    }

    /// `text` with every control character (C0, DEL, C1) written `\xHH`, a byte at a time, as a name that is not
    /// UTF-8 is shown: a file's name is the user's to choose, and one holding a newline forged a line of kiln's
    /// ("kiln: 9 written, 0 skipped…"), one holding ESC sent the terminal its sequences. (The JSON stream escapes them.)
    static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var shown = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                for byte in String(scalar).utf8 { shown += String(format: "\\x%02X", byte) }
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    // MARK: - Drawing

    private func printLine(_ text: String) {
        state.withLock { s in
            erase(&s)
            err.write(Self.visible(text) + "\n")
            s.lastDraw = nil
        }
        if showBar { redraw(force: true) }
    }

    private func redraw(force: Bool) {
        let now = ContinuousClock.now
        state.withLock { s in
            if !force, let last = s.lastDraw, now - last < .milliseconds(100) { return }
            s.lastDraw = now
            let width = max(20, err.columns ?? 80)
            let lines = [headline(s, width: width), barLine(s, width: width)]
            // Back to the start of the display, then each line cleared and rewritten: no scrolling.
            var out = s.drawnLines > 1 ? "\r\u{1B}[\(s.drawnLines - 1)A" : "\r"
            out += lines.map { "\u{1B}[2K" + $0 }.joined(separator: "\n")
            err.write(out)
            s.drawnLines = lines.count
        }
    }

    private func erase(_ s: inout State) {
        guard s.drawnLines > 0 else { return }
        var out = s.drawnLines > 1 ? "\r\u{1B}[\(s.drawnLines - 1)A" : "\r"
        out += "\u{1B}[J"  // clear to the end of the screen
        err.write(out)
        s.drawnLines = 0
    }

    private func headline(_ s: State, width: Int) -> String {
        let text = s.status.map { "\(s.title) — \($0)" } ?? "\(s.title) — \(s.subtitle)"
        return styled(Self.fitWhole(Self.visible(text), width), bold: true)
    }

    private func barLine(_ s: State, width: Int) -> String {
        guard let snap = s.last else { return Self.fitWhole("starting… · \(s.device)", width) }
        let fields = Self.fields(snap)
        // Three columns stay spare: the terminal echoes `^C` after the cursor, and a
        // wrapped row would break the in-place redraw.
        let room = width - 3, minimumBar = 12
        let length = { (kept: [(priority: Int, text: String)]) in
            kept.reduce(0) { $0 + $1.text.count } + 3 * max(0, kept.count - 1) + 1
        }
        var kept: [(priority: Int, text: String)] = []
        for field in fields.sorted(by: { $0.priority < $1.priority }) {
            let trial = kept + [field]
            if length(trial) + minimumBar <= room || (kept.isEmpty && length(trial) <= room) { kept = trial }
        }
        // Back to display order (priorities are distinct).
        kept.sort { a, b in fields.firstIndex { $0.priority == a.priority }! < fields.firstIndex { $0.priority == b.priority }! }
        let tail = " " + kept.map(\.text).joined(separator: " · ")
        let barWidth = min(30, room - tail.count - 2)
        guard barWidth >= minimumBar - 2 else { return String(tail.dropFirst()) }
        let filled = min(barWidth, Int(snap.fraction * Double(barWidth)))
        let bar = "[" + String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled) + "]"
        return styled(bar, bold: false) + tail
    }

    /// The bar's fields in display order, each with its priority (0 = kept longest). At any
    /// width a field is shown whole or not at all: a number is never cut.
    private static func fields(_ snap: ProgressSnapshot) -> [(priority: Int, text: String)] {
        // Paused from a view (KDE's Pause): said first, as the desktop's text says it; systemd's STATUS= line
        // showed a running job's fields with no word of the pause.
        var fields: [(priority: Int, text: String)] = snap.paused ? [(0, "paused")] : []
        fields += [
            (0, "\(Int((snap.fraction * 100).rounded(.down)))%"),
            (1, "\(snap.counts.completed)/\(snap.total)"),
        ]
        if snap.counts.failed > 0 { fields.append((2, "\(snap.counts.failed) failed")) }
        fields.append((5, String(format: "%.1f MPix/s", snap.megapixelsPerSecond)))
        fields.append((6, String(format: "%.1f img/s", snap.imagesPerSecond)))
        // While stopping the work left is not what the job will do: no ETA at all.
        if !snap.stopping { fields.append((3, "ETA " + (snap.remaining?.clock ?? "–:––"))) }
        fields.append((4, snap.elapsed.clock))
        if let current = snap.current { fields.append((7, Self.visible((current as NSString).lastPathComponent))) }
        return fields
    }

    /// The bar's fields as one line of plain text, all of them, without the bar:
    /// "37% · 150/400 · 12.3 MPix/s · 41.0 img/s · ETA 0:08 · 0:04 · 000149.png".
    static func plainLine(_ snap: ProgressSnapshot) -> String {
        fields(snap).map(\.text).joined(separator: " · ")
    }

    /// `text` cut to the terminal width (three columns spare, as for the bar):
    /// whole ` · ` segments are dropped from the end, then whole words, so a
    /// number or a size is never cut in the middle.
    static func fitWhole(_ text: String, _ width: Int) -> String {
        let room = width - 3
        guard text.count > room else { return text }
        var segments = text.components(separatedBy: " · ")
        while segments.count > 1 && segments.joined(separator: " · ").count + 2 > room { segments.removeLast() }
        var words = segments.joined(separator: " · ").split(separator: " ").map(String.init)
        while words.count > 1 && words.joined(separator: " ").count + 2 > room { words.removeLast() }
        let kept = words.joined(separator: " ")
        return kept.count + 2 > room ? "…" : kept + " …"
    }

    private func styled(_ text: String, bold: Bool) -> String {
        guard color else { return text }
        return (bold ? "\u{1B}[1m" : "\u{1B}[36m") + text + "\u{1B}[0m"
    }
}

/// Prints `line` on standard output for a person, control characters shown as `\xHH` (``TextReporter/visible(_:)``):
/// `kiln status` and `kiln cancel` quote titles and paths a user chose.
func say(_ line: String) {
    print(TextReporter.visible(line))
}
