/// How long the images left take on cores they share (``JobProgress/secondsLeftInHand(rate:)``):
/// processor sharing, played out image by image.
///
/// Up to `workers` images run at once, each as fast as it would go alone slowed by the others
/// beside it (``JobProgress/speedUp(sharing:to:cores:)``); when one ends, the next waiting image takes
/// its place, in the order the job begins them; when none waits, the images left share the
/// cores among fewer. So the end of a job, where one or two images run without company, takes
/// as long as those images alone take — not the job's rate with every worker busy.
///
/// Rejected on W1 at level 9 (2 workers): each image in hand at its own speed alone, summed, and
/// the images waiting at the job's rate (as if each ran with every core to itself at the
/// rate of two side by side). The last image, begun 6.5 s before the end once the two before
/// it were done, then counted at the pair's rate, 1.2 × too fast: estimates 35-39 % short in the
/// last 8 s (2 of 93 outside ±35 %). Played out as here, the same runs' worst were 21, 24 and
/// 27 % short (the 27 % 2.7 s before the end, within a second).
enum SharedCores {
    /// An image being worked on: cost left, and its speed alone in cost per second.
    struct Running {
        var left: Double
        var alone: Double
    }

    /// Images waiting beyond this many times `workers` are counted at the job's rate, not played
    /// out, and so is everything when more than ``playedWorkers`` images run at once: the play
    /// costs about `workers` × (`workers` + the images played) steps under the job's lock, at most
    /// 64 × 576, whatever the batch and `--jobs`.
    static let playedOut = 8
    /// The most images at once that are played out.
    static let playedWorkers = 64

    /// The seconds until the last image is done: `running` first, then `waiting` (their costs,
    /// in the order they will begin; each at `aloneSpeed` when alone), `workers` at a time on `cores`.
    /// The job's rate, `rate` cost per second with every worker busy, counts the images waiting
    /// beyond the last ``playedOut`` × `workers` (and, then, the running images too). Amounts that
    /// are not finite and positive count for nothing; with no finite positive `rate`, 0.
    static func seconds(running: [Running], waiting: ArraySlice<Double>, waitingCost: Double, aloneSpeed: Double,
                        rate: Double, workers: Int, cores: Int) -> Double {
        guard rate.isFinite, rate > 0 else { return 0 }
        let workers = max(workers, 1)
        let running = running.filter { $0.left.isFinite && $0.left > 0 }
        let waitingCost = waitingCost.isFinite ? max(waitingCost, 0) : 0
        guard workers <= playedWorkers, aloneSpeed.isFinite, aloneSpeed > 0 else {
            return running.reduce(waitingCost) { $0 + $1.left } / rate
        }
        let tail = waiting.suffix(playedOut * workers)
        if tail.count < waiting.count {
            // Far from the end: the images in hand and the bulk of the queue go at the job's rate.
            let bulk = running.reduce(waitingCost - tail.reduce(0) { $0 + ($1.isFinite ? max($1, 0) : 0) }) { $0 + $1.left }
            return max(bulk, 0) / rate + playOut([], then: tail, aloneSpeed: aloneSpeed, workers: workers, cores: cores)
        }
        return playOut(running, then: tail, aloneSpeed: aloneSpeed, workers: workers, cores: cores)
    }

    /// Processor sharing of `running`, then `queue`, over `workers` slots.
    private static func playOut(_ running: [Running], then queue: ArraySlice<Double>, aloneSpeed: Double,
                                workers: Int, cores: Int) -> Double {
        // An image with no finite speed is left out: it would never end (and the play with it).
        var active = running.filter { $0.left > 0 && $0.alone.isFinite && $0.alone > 0 }
        var queue = queue[...]
        var seconds = 0.0
        while true {
            while active.count < workers, let cost = queue.popFirst() {
                if cost.isFinite, cost > 0 { active.append(Running(left: cost, alone: aloneSpeed)) }
            }
            guard !active.isEmpty else { return seconds }
            // More images than workers share `workers` slots' worth of speed.
            let sharing = min(active.count, workers)
            let slowdown = JobProgress.speedUp(sharing: sharing, to: 1, cores: cores) * Double(active.count) / Double(sharing)
            let times = active.map { $0.left * slowdown / $0.alone }
            guard let first = times.indices.min(by: { times[$0] < times[$1] }) else { return seconds }
            let step = times[first]
            seconds += step
            for index in active.indices {
                active[index].left -= active[index].alone / slowdown * step
            }
            // The image that set the step is done, whatever the rounding (so every turn ends one and
            // the play ends); others within a nanosecond of it too.
            active.remove(at: first)
            active.removeAll { $0.left * slowdown / $0.alone <= 1e-9 }
        }
    }
}
