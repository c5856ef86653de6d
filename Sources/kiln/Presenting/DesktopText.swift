import ContinuedProcessing

/// What the desktop's views of the job say (the freedesktop notification, the KDE job view): a summary,
/// the subtitle and one line of detail, from a presentation and the percent shown.
struct DesktopText: Equatable {
    /// The title; at the end, "TITLE — done" or "TITLE — ended".
    var summary: String
    /// The job's subtitle (its operations, output format and device).
    var subtitle: String
    /// "37% · 150 of 400 images · 1 failed · ETA 0:08" ("paused · 37% · 150 of 400 images" while paused);
    /// while queued, the queue position; while stopping, what it waits for; at the end, the summary line
    /// the terminal prints.
    var detail: String

    /// The text of `p` with `percent` shown; `paused`: a person paused the running job (no ETA then).
    init(_ p: TaskPresentation, percent: Int32, paused: Bool = false) {
        summary = p.title
        subtitle = p.subtitle
        let failed = p.failedUnits > 0 ? " · \(p.failedUnits) failed" : ""
        let counts = "\(p.completedUnits) of \(p.totalUnits) images" + failed
        switch p.state {
        case .queued(let position):
            detail = "queued at position \(position), waiting for another kiln job"
        case .running where paused:
            detail = "paused · \(percent)% · \(counts)"
        case .running:
            let eta = p.estimatedRemaining.map { " · ETA \($0.clock)" } ?? ""
            detail = "\(percent)% · \(counts)\(eta)"
        case .stopping:
            detail = "stopping: finishing the images in flight · \(counts)"
        case .ended(let success):
            summary = p.title + (success ? " — done" : " — ended")
            detail = p.statusLine ?? counts
        }
    }

    /// `text` as a notification body's markup says it (the freedesktop specification's `body-markup`, a small
    /// subset of XML): `&`, `<` and `>` escaped, so a title "Tom & Jerry" or a subtitle "a < b" shows as written.
    static func escapingMarkup(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    /// The percent done that a view shows, 0–100: never below `shown`, whatever a resumed or stopping
    /// job's fraction does.
    static func percent(_ p: TaskPresentation, atLeast shown: Int32) -> Int32 {
        max(shown, Int32(min(100, max(0, (p.fractionCompleted * 100).rounded(.down)))))
    }
}
