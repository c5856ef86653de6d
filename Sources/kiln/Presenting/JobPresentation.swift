import ContinuedProcessing
import Export
import Locking

/// The export as the system's views show it (``TaskPresenter``s: desktop
/// notification, systemd): one ``TaskPresentation`` that the scheduler's events
/// and the observer's polls keep current, handed to every presenter on each change.
/// The end is presented once, whatever path the job leaves by (``ClosingStream`` calls ``end``).
final class JobPresentation: Sendable {
    private let presenters: [any TaskPresenter]
    private let current: Locked<TaskPresentation?>

    /// Presents `identifier`'s task to `presenters` (none: every call does nothing), from `completed` images
    /// and `fraction` done (a resumed job's: its first notification said 0 % · 0 of 4 images, a second before 50 %).
    init(identifier: String, title: String, subtitle: String, total: Int, completed: Int = 0, fraction: Double = 0,
         presenters: [any TaskPresenter]) {
        self.presenters = presenters
        var presentation = TaskPresentation(identifier: identifier, title: title, subtitle: subtitle)
        presentation.totalUnits = total
        presentation.completedUnits = completed
        presentation.fractionCompleted = fraction
        current = Locked(presenters.isEmpty ? nil : presentation)
    }

    /// Gives the presenters what a person may do from their views; called once, before anything is presented.
    func attach(_ actions: TaskActions) {
        for presenter in presenters { presenter.attach(actions) }
    }

    /// The job waits for a machine slot at this 1-based position.
    func queued(position: Int) {
        update { $0.state = .queued(position: position) }
    }

    /// One of the task's events (started, expiring, title changed…).
    func apply(_ event: TaskEvent) {
        update { $0.apply(event) }
    }

    /// What the observer polled: the fraction, the counts, the time left and the bar's text.
    func progress(_ snapshot: ProgressSnapshot) {
        update {
            $0.fractionCompleted = snapshot.fraction
            $0.completedUnits = snapshot.counts.completed
            $0.failedUnits = snapshot.counts.failed + snapshot.counts.conflicts
            $0.estimatedRemaining = snapshot.remaining
            $0.statusLine = TextReporter.plainLine(snapshot)
        }
    }

    /// The job ended with `exitCode`, `fraction` of it done; `summary` is the line the terminal shows for it. Presented once,
    /// outside the lock: a presenter may wait there until its final state is shown.
    func end(_ counts: ExportJob.Counts, fraction: Double, exitCode: Int32, summary: String) {
        let last: TaskPresentation? = current.withLock { current in
            guard var presentation = current, !presentation.hasEnded else { return nil }
            presentation.state = .ended(success: exitCode == 0)
            presentation.fractionCompleted = fraction
            presentation.completedUnits = counts.completed
            presentation.failedUnits = counts.failed + counts.conflicts
            presentation.estimatedRemaining = nil
            presentation.statusLine = summary
            current = presentation
            return presentation
        }
        guard let last else { return }
        for presenter in presenters { presenter.present(last) }
    }

    /// Changes the presentation (not after its end) and presents the result. Under the lock, so that
    /// presenters see the changes in order: their `present` only notes it (or sends one datagram).
    private func update(_ change: (inout TaskPresentation) -> Void) {
        current.withLock { current in
            guard var presentation = current, !presentation.hasEnded else { return }
            change(&presentation)
            // The job's own end comes through `end`, with its exit code; the task's end event waits for it.
            guard !presentation.hasEnded else { return }
            current = presentation
            for presenter in presenters { presenter.present(presentation) }
        }
    }
}

extension TaskPresentation {
    /// Whether the presentation is in its final state.
    var hasEnded: Bool {
        if case .ended = state { true } else { false }
    }
}
