extension TaskScheduler {
    /// Starts the polling loop unless it runs already.
    func startWatchdog() {
        guard watchdog == nil else { return }
        watchdog = Task { await self.watch() }
    }

    /// Polls every running task until none is left. Progress is polled because
    /// Foundation on Linux has no key-value observing.
    ///
    /// Time the task could not run counts neither as a stall nor against any grace: the machine's
    /// sleep (the continuous clock ran on, the suspending one did not) and a stop of the process
    /// (a poll far later than asked, with a continuation, ``processContinued()``, since the last
    /// one). A poll late for no such reason is a busy machine, and its time counts: before, every
    /// poll more than 1 s late was excused as a stop, so on a machine loaded enough a stalled task
    /// never expired (a watchdog test failed so under a mixed test run). A late poll whose SIGCONT
    /// has not been handled yet is judged at the next poll, one interval later.
    private func watch() async {
        let interval = configuration.pollInterval
        var previous = (ContinuousClock.now, SuspendingClock.now)
        var seen = continuations.load(ordering: .relaxed)
        var undecided: Duration?
        while !running.isEmpty {
            try? await Task.sleep(for: interval)
            let now = (ContinuousClock.now, SuspendingClock.now)
            let slept = (now.0 - previous.0) - (now.1 - previous.1)
            let late = now.0 - previous.0 - interval - max(slept, .zero)
            previous = now
            if slept > .seconds(1) { excuse(slept) }
            let continued = continuations.load(ordering: .relaxed)
            let stopped = continued != seen
            seen = continued
            if stopped {
                excuse((undecided ?? .zero) + max(late, .zero))
                undecided = nil
            } else if late > .seconds(1) && undecided == nil {
                undecided = late  // its continuation may not be handled yet: judged at the next poll
                continue
            } else {
                undecided = nil  // no stop: the time counts
            }
            inspect(at: now.0)
        }
        watchdog = nil
    }

    private func excuse(_ gap: Duration) {
        for index in running.indices {
            running[index].watch.excuse(gap)
            running[index].task.postpone(by: gap)
        }
    }

    private func inspect(at now: ContinuousClock.Instant) {
        for index in running.indices {
            let task = running[index].task
            switch task.phase {
            case .running:
                if running[index].watch.isStalled(task.progress, at: now, interval: configuration.stallInterval) {
                    task.expire(.stalled)
                } else if let expected = configuration.expectedDuration,
                    let snapshot = running[index].watch.slowSnapshot(
                        identifier: task.identifier, fraction: task.progress.fractionCompleted,
                        at: now, expected: expected)
                {
                    ask(snapshot, about: task)
                }
            case .expiring:
                if task.failIfGraceExhausted(at: now) {
                    running[index].handle?.cancel()  // The task is abandoned; let its handler notice.
                }
            case .ended:
                break
            }
        }
        reap()
    }

    /// Asks the initiator whether a slow task should go on, without blocking the scheduler.
    private func ask(_ snapshot: TaskSnapshot, about task: ContinuedProcessingTask) {
        guard task.reportSlowProgress() else { return }
        let question = configuration.shouldContinueWhenSlow
        Task {
            if await !question(snapshot) {
                task.expire(.declinedWhenSlow)
            }
        }
    }
}
