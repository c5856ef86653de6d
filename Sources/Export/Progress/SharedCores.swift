/// How long the images left take on cores they share (``JobProgress/secondsLeftInHand(rate:)``):
/// processor sharing, played out image by image.
///
/// Up to `workers` images run at once, each as fast as it would go alone slowed by the others
/// beside it (``JobProgress/speedUp(sharing:to:)``); when one ends, the next waiting image takes
/// its place, in the order the job begins them; when none waits, the images left share the
/// cores among fewer. So the end of a job, where one or two images run without company, takes
/// as long as those images alone take — not the job's rate with every worker busy.
///
/// Rejected on W1 at level 9 (2 workers): each image in hand at its own speed alone, summed, and
/// the images waiting at the job's rate (as if each ran with every core to itself at the
/// rate of two side by side). The last image, begun 6.5 s before the end once the two before
/// it were done, then counted at the pair's rate, 1.2 × too fast: estimates 35-39 % short in the
/// last 8 s (2 of 93 outside ±35 %). Played out as here, the same runs' worst was 24 % short.
enum SharedCores {
    /// An image being worked on: cost left, and its speed alone in cost per second.
    struct Running {
        var left: Double
        var alone: Double
    }

    /// Images waiting beyond this many times `workers` are counted at the job's rate, not played
    /// out: an estimate under 1 ms of the lock's time whatever the batch, and the tail they
    /// leave is the last images', which are played out.
    static let playedOut = 8

    /// The seconds until the last image is done: `running` first, then `waiting` (their costs,
    /// in the order they will begin; each at `aloneSpeed` when alone), `workers` at a time.
    /// The job's rate, `rate` cost per second with every worker busy, counts the images waiting
    /// beyond the last ``playedOut`` × `workers` (and, then, the running images too).
    static func seconds(running: [Running], waiting: ArraySlice<Double>, waitingCost: Double, aloneSpeed: Double,
                        rate: Double, workers: Int) -> Double {
        let workers = max(workers, 1)
        let tail = waiting.suffix(playedOut * workers)
        if tail.count < waiting.count {
            // Far from the end: the images in hand and the bulk of the queue go at the job's rate.
            let bulk = running.reduce(waitingCost - tail.reduce(0, +)) { $0 + $1.left }
            return max(bulk, 0) / rate + playOut([], then: tail, aloneSpeed: aloneSpeed, workers: workers)
        }
        return playOut(running, then: tail, aloneSpeed: aloneSpeed, workers: workers)
    }

    /// Processor sharing of `running`, then `queue`, over `workers` slots.
    private static func playOut(_ running: [Running], then queue: ArraySlice<Double>, aloneSpeed: Double,
                                workers: Int) -> Double {
        var active = running.filter { $0.left > 0 && $0.alone > 0 }
        var queue = queue[...]
        var seconds = 0.0
        while true {
            while active.count < workers, let cost = queue.popFirst() {
                if cost > 0 { active.append(Running(left: cost, alone: aloneSpeed)) }
            }
            guard !active.isEmpty else { return seconds }
            // More images than workers share `workers` slots' worth of speed.
            let sharing = min(active.count, workers)
            let slowdown = JobProgress.speedUp(sharing: sharing, to: 1) * Double(active.count) / Double(sharing)
            let step = active.map { $0.left * slowdown / $0.alone }.min() ?? 0
            seconds += step
            for index in active.indices {
                active[index].left -= active[index].alone / slowdown * step
            }
            // The image that set the step is done (exactly, whatever the rounding); others within a
            // nanosecond's work of it too.
            active.removeAll { $0.left * slowdown / $0.alone <= 1e-9 }
        }
    }
}
