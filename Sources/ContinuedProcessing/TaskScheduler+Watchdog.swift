extension TaskScheduler {
    /// Starts the polling loop unless it runs already.
    func startWatchdog() {
        guard watchdog == nil else { return }
        watchdog = Task { await self.watch() }
    }

    /// Polls every running task until none is left. Progress is polled because
    /// Foundation on Linux has no key-value observing.
    private func watch() async {
        let interval = configuration.pollInterval
        var previous = ContinuousClock.now
        while !running.isEmpty {
            try? await Task.sleep(for: interval)
            let now = ContinuousClock.now
            // A poll far later than asked means the process was stopped (SIGTSTP, sleep):
            // that time counts neither as a stall nor against any grace.
            let gap = now - previous - interval
            previous = now
            if gap > .seconds(1) { excuse(gap) }
            inspect(at: now)
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
