import Dispatch
import Foundation
import Synchronization

/// The handled signals that arrived before libdispatch's own handlers stood (bit `number` set): a global, as a
/// signal handler captures nothing; an atomic `or` is async-signal-safe. See ``ProcessLifecycle/start()``.
private let caughtBeforeSources = Atomic<UInt64>(0)

/// Maps a command-line process's signals and job control onto a ``TaskScheduler``.
///
/// - First SIGINT: the user cancels → `expireAll(reason: .userCancelled)`.
/// - Second SIGINT: ``Options/onStopNow``.
/// - SIGTERM: the system needs the resources → `expireAll(reason: .systemTermination)`;
///   tasks then have the scheduler's expiration grace.
/// - SIGHUP (the terminal closed): a stop like SIGTERM → `expireAll(reason: .hangUp)`,
///   unless SIGHUP was ignored when ``start()`` ran (`nohup` sets `SIG_IGN`): then it
///   stays ignored, as the user asked the process to outlive its terminal.
/// - SIGTSTP: ``Options/onSuspend`` (flush), then the process stops.
/// - SIGCONT: ``Options/onResume``, and the foreground check runs again.
/// - In the background of a shell (`tcgetpgrp(STDIN) != getpgrp()`), the nice value rises by
///   ``Options/backgroundNiceIncrement``; back in the foreground it is lowered again.
///
/// Lowering a nice value needs privilege (`CAP_SYS_NICE` or `RLIMIT_NICE`). Without it the
/// process stays at the background priority after returning to the foreground, reports
/// ``ProcessState/active`` all the same, and says so once through ``Options/log``.
public final class ProcessLifecycle: Sendable {
    /// The installed sources. Dispatch sources are thread-safe objects; Swift does not mark them `Sendable`.
    // Unchecked: dispatch sources are thread-safe objects that Swift does not mark Sendable.
    private struct Sources: @unchecked Sendable {
        var signals: [any DispatchSourceSignal] = []
        /// The signals taken over (SIGHUP only when it was not ignored at the start).
        var numbers: [Int32] = []
        var timer: (any DispatchSourceTimer)?
    }

    private struct State {
        var sources = Sources()
        var interrupts = 0
        var terminating = false
        /// Why the process is terminating: the first signal that asked it to.
        var reason: ExpirationReason?
        var suspended = false
        var inBackground = false
        var foregroundNice: Int32 = 0
        var restoreDenied = false
        var reported = ProcessState.active

        var current: ProcessState {
            terminating ? .terminating : suspended ? .suspended : inBackground ? .background : .active
        }
    }

    private static let handledSignals: [Int32] = [SIGINT, SIGTERM, SIGTSTP, SIGCONT]

    private let scheduler: TaskScheduler
    private let options: Options
    private let queue = DispatchQueue(label: "org.kiln.process-lifecycle")
    private let state = Locked(State())

    /// Creates a lifecycle for `scheduler`; nothing happens until ``start()``.
    public init(scheduler: TaskScheduler, options: Options = Options()) {
        self.scheduler = scheduler
        self.options = options
    }

    /// The process's current state.
    public var processState: ProcessState { state.withLock { $0.current } }

    /// Why the process is ``ProcessState/terminating``, as the first signal that asked it to stop
    /// said (`userCancelled`, `systemTermination`, `hangUp`); nil while nobody asked. What a caller
    /// reports for work it stopped itself, such as a wait in a queue that no task saw.
    public var terminationReason: ExpirationReason? { state.withLock { $0.reason } }

    /// Takes over SIGINT, SIGTERM, SIGTSTP, SIGCONT and SIGHUP (unless SIGHUP is
    /// ignored now) and starts the foreground check. A signal is handled from the moment this is called:
    /// libdispatch installs its own handlers asynchronously (on its manager thread, about a quarter of a
    /// millisecond later each), so a handler of this type's records what comes before, and this waits until
    /// libdispatch's stand (at most 100 ms), then handles what was recorded. Before (2026-11-28), the signals were
    /// set to `SIG_IGN` for that moment: a Ctrl-C in a job's first ~50 ms was lost, and the job ran to its end.
    /// Call it once, from the main thread, before the work starts.
    public func start() {
        let foregroundNice = ThreadPriority.current()
        var sources: [any DispatchSourceSignal] = []
        let numbers = Self.handledSignals + (Self.isIgnored(SIGHUP) ? [] : [SIGHUP])
        var recording: [Int32: Int] = [:]
        for number in numbers {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                _ = caughtBeforeSources.bitwiseOr(1 << UInt64(number), ordering: .relaxed)
            }
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
            recording[number] = Self.handlerAddress(number)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in self?.handle(number) }
            source.resume()
            sources.append(source)
        }
        let waitUntil = ContinuousClock.now + Self.sourceWait
        while numbers.contains(where: { Self.handlerAddress($0) == recording[$0] }), ContinuousClock.now < waitUntil {
            usleep(200)
        }
        handleCaughtBeforeSources(numbers)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let interval = DispatchTimeInterval.nanoseconds(Self.nanoseconds(options.foregroundCheckInterval))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in
            self?.checkForeground()
            self?.handleCaughtBeforeSources(numbers)  // where libdispatch's handlers did not stand in time
        }
        timer.resume()
        let installed = Sources(signals: sources, numbers: numbers, timer: timer)
        state.withLock { state in
            state.sources = installed
            state.foregroundNice = foregroundNice
        }
        queue.async { [weak self] in self?.checkForeground() }
    }

    /// Gives the signals back to their default actions, stops the foreground check and
    /// restores the foreground priority where allowed.
    public func stop() {
        let (sources, wasBackground, nice) = state.withLock { state in
            defer {
                state.sources = Sources()
                state.inBackground = false
            }
            return (state.sources, state.inBackground, state.foregroundNice)
        }
        for source in sources.signals {
            source.cancel()
        }
        for number in sources.numbers {  // a SIGHUP ignored at the start stays ignored
            signal(number, SIG_DFL)
        }
        sources.timer?.cancel()
        if wasBackground { restorePriority(nice) }
    }

    private func handle(_ number: Int32) {
        switch number {
        case SIGINT:
            // A Ctrl-C once the work is stopping, whatever stopped it, stops it at once: after a SIGTERM or SIGHUP (or a
            // stall) it was taken for the first and waited out the grace, though the display said it stops now.
            let stopping = options.isStopping()
            let first = state.withLock { state in
                state.interrupts += 1
                defer { state.terminating = true }
                state.reason = state.reason ?? .userCancelled
                return state.interrupts == 1 && !state.terminating && !stopping
            }
            guard first else {
                options.onStopNow()
                return
            }
            reportState()
            Task { [scheduler] in await scheduler.expireAll(reason: .userCancelled) }
        case SIGTERM:
            state.withLock { $0.terminating = true; $0.reason = $0.reason ?? .systemTermination }
            reportState()
            Task { [scheduler] in await scheduler.expireAll(reason: .systemTermination) }
        case SIGHUP:
            // Decision: a closed terminal stops the job as SIGTERM does (grace, an end, resumable),
            // not at once: the images in flight are worth finishing.
            state.withLock { $0.terminating = true; $0.reason = $0.reason ?? .hangUp }
            reportState()
            Task { [scheduler] in await scheduler.expireAll(reason: .hangUp) }
        case SIGTSTP:
            suspend()
        case SIGCONT:
            resume()
        default:
            break
        }
    }

    /// Flushes, then stops the whole process. SIGSTOP cannot be caught or ignored, so the
    /// SIGTSTP source never has to be removed and re-installed around the stop.
    private func suspend() {
        state.withLock { $0.suspended = true }
        reportState()
        options.onSuspend()
        kill(getpid(), SIGSTOP)
    }

    /// Runs on SIGCONT, also when the stop came from a plain SIGSTOP.
    private func resume() {
        scheduler.processContinued()  // the watchdog excuses the time the process stood still
        state.withLock { $0.suspended = false }
        checkForeground()
        reportState()
        options.onResume()
    }

    private func checkForeground() {
        let foreground = options.isForeground()
        let (changed, nice) = state.withLock { state in
            let changed = state.inBackground == foreground && !state.suspended
            if changed { state.inBackground = !foreground }
            return (changed, state.foregroundNice)
        }
        if foreground {
            if changed { restorePriority(nice) }
        } else {
            // Also on every check: threads started by a thread not yet lowered.
            lowerPriority(from: nice)
        }
        if changed { reportState() }
    }

    private func lowerPriority(from nice: Int32) {
        let target = min(nice + options.backgroundNiceIncrement, 19)
        if let error = ThreadPriority.setAll(target) {
            options.log("could not lower the priority to nice \(target): \(String(cString: strerror(error)))")
        }
    }

    private func restorePriority(_ nice: Int32) {
        guard let error = ThreadPriority.setAll(nice) else { return }
        let firstTime = state.withLock { state in
            defer { state.restoreDenied = true }
            return !state.restoreDenied
        }
        if firstTime {
            options.log(
                "could not raise the priority back to nice \(nice) (\(String(cString: strerror(error)))); "
                    + "staying at the background priority")
        }
    }

    private func reportState() {
        let change: ProcessState? = state.withLock { state in
            guard state.current != state.reported else { return nil }
            state.reported = state.current
            return state.current
        }
        if let change { options.onStateChange(change) }
    }

    /// The most ``start()`` waits for libdispatch's signal handlers: they stand after about 0.25 ms each here (5 signals);
    /// a libdispatch that installs none costs this once, and the foreground timer then hands the signals on.
    static let sourceWait = Duration.milliseconds(100)

    /// Handles, on the lifecycle's queue, the signals of `numbers` recorded before libdispatch's handlers stood.
    private func handleCaughtBeforeSources(_ numbers: [Int32]) {
        let caught = caughtBeforeSources.exchange(0, ordering: .relaxed)
        for number in numbers where caught & (1 << UInt64(number)) != 0 {
            queue.async { [weak self] in self?.handle(number) }
        }
    }

    /// The address of signal `number`'s handler now (0 for none).
    private static func handlerAddress(_ number: Int32) -> Int {
        var current = sigaction()
        guard sigaction(number, nil, &current) == 0 else { return 0 }
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self)
    }

    /// Whether signal `number` is ignored (`SIG_IGN`) now, as `nohup` leaves SIGHUP; reads the action
    /// without changing it.
    public static func isIgnored(_ number: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(number, nil, &current) == 0 else { return false }
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    private static func nanoseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
