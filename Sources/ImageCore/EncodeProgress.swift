import Dispatch
import Glibc
import Locking

/// Where an encode reports how far it is: the fraction of its rows compressed
/// (0…1), never decreasing, from whichever thread compressed them. An export
/// counts it as work done, so a slow encode (zlib at level 9 on a giant image)
/// keeps the job's progress moving and its stall watchdog quiet.
public final class EncodeProgress: Sendable {
    /// The fraction reported (with what ``reportingWork(below:_:)`` added), the segments done, and the fraction the
    /// encoder itself reported last.
    private let state = Locked<(fraction: Double, segments: Int, said: Double)>((0, 0, 0))
    private let handler: @Sendable (Double) -> Void

    /// Calls `handler` with each new fraction (under a lock: calls never overlap or go backwards).
    public init(_ handler: @escaping @Sendable (Double) -> Void) {
        self.handler = handler
    }

    /// Reports `fraction` of the rows done, if it is more than reported before.
    public func report(_ fraction: Double) {
        state.withLock { state in
            state.said = max(state.said, fraction)
            raise(&state.fraction, to: fraction)
        }
    }

    /// Reports one more of `count` row segments compressed (they finish in any order).
    public func segmentDone(of count: Int) {
        state.withLock { state in
            state.segments += 1
            state.said = max(state.said, Double(state.segments) / Double(count))
            raise(&state.fraction, to: Double(state.segments) / Double(count))
        }
    }

    /// Runs `work`, one call on this thread into an encoder that reports its progress in steps of `step` (libwebp: a
    /// percent) but says nothing for long stretches between them, and while it runs reports the CPU time this thread
    /// spends as progress within the step: at most `step` × c / (c + 10) past the encoder's last report after c
    /// seconds of CPU since it, never reaching the next step (so never past what the encoder then says), and rising
    /// while the thread works, however long. Before, libwebp's last stage on a detailed 16000 × 12000 picture
    /// (writing its tokens, over 60 s) said nothing, and the stall watchdog stopped a job that worked as stalled
    /// (exit 75, "resumable"); so did a PNG's deflate segment (zlib's level 9, seconds of CPU each). A thread that
    /// spends no CPU (blocked) reports nothing. Checked four times a second.
    public func reportingWork<T>(below step: Double, _ work: () throws -> T) rethrows -> T {
        var clock = clockid_t()
        guard pthread_getcpuclockid(pthread_self(), &clock) == 0 else { return try work() }
        func seconds() -> Double? {
            var now = timespec()
            return clock_gettime(clock, &now) == 0 ? Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 : nil
        }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "kiln.encode-progress"))
        // Signalled by the timer's cancel handler: the call returns only once no tick can come (a tick after it would
        // raise the progress of work this thread no longer does).
        let ended = DispatchSemaphore(value: 0)
        // What the encoder had said at the last tick, and this thread's CPU time when it said it: from the call's start,
        // so the first tick counts the CPU spent since (it only set this, and the progress stood still for a second).
        let since = Locked<(said: Double, cpu: Double)>((state.withLock { $0.said }, seconds() ?? 0))
        timer.setEventHandler { [self] in
            guard let cpu = seconds() else { return }
            state.withLock { state in
                let spent = since.withLock { since in
                    if since.said != state.said { since = (state.said, cpu) }
                    return cpu - since.cpu
                }
                // A millisecond at least: a thread blocked after the first tick spent microseconds reaching its wait
                // (45 µs under a loaded CI, which raised the progress of work that was not being done).
                guard spent >= 0.001 else { return }
                // Never past the whole: libwebp's work after its 100 % (its chunks muxed) is within it.
                raise(&state.fraction, to: min(1, state.said + step * 0.99 * spent / (spent + 10)))
            }
        }
        timer.setCancelHandler { ended.signal() }
        timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250), leeway: .milliseconds(50))
        timer.resume()
        defer {
            timer.cancel()
            ended.wait()  // No tick after the call: the encoder's thread may go on to other work.
        }
        return try work()
    }

    private func raise(_ reported: inout Double, to fraction: Double) {
        guard fraction > reported else { return }
        reported = fraction
        handler(fraction)
    }
}
