import Foundation
import Locking

/// The job's progress, weighted by what each stage of each image costs in
/// time, published on the task's `Progress` (SPEC §5: the fraction counts
/// decode, render and encode, never decreases within a run, and a resume
/// continues from it).
///
/// Every image's cost is known before the first image starts: the job reads
/// each input's header first (``StageCost/estimate(header:plan:outputPixels:)``),
/// so the weights never change as images are read and the fraction can only
/// rise. An image moves through its render stage (decode and render stream
/// together, strip by strip) and then its encode stage, each in proportion to
/// its cost; it is done once committed. A resume starts from the part of the
/// fraction in the images the stopped run finished (`base`, its
/// ``finishedFraction``) and spreads the work left over the rest.
///
/// The state is a few sums under one lock, whatever the batch size: no
/// `Progress` object per image (Foundation's `Progress` has no locking on
/// Linux, and children would grow with the batch). Observers use ``fraction``.
// Unchecked: `root` (Foundation, not Sendable) is only touched under `state`'s lock.
public final class JobProgress: @unchecked Sendable {
    /// The root's total, in units: fine enough that every step moves it.
    private static let resolution: Int64 = 1 << 40

    private struct State {
        /// The fraction earlier runs reached, and this run's share of the rest.
        let base: Double
        let total: Double
        /// Cost of the images finished, and of the finished stages of those in flight (by image, and
        /// summed: a step costs the same however many images wait for their commit).
        var done = 0.0
        var inFlight: [Int: InFlight] = [:]
        var inFlightDone = 0.0
        /// The first image not begun yet (images begin in order; two workers may begin theirs a
        /// moment apart the other way round, leaving one out of the ETA's floor for that moment).
        var next = 0
        /// The largest fraction published: what observers may have seen.
        var published = 0.0
        /// Images finished, and this run's images.
        var finished = 0
        let images: Int

        /// Exactly 1 once every image is finished, and below 1 until then: the costs summed in another order
        /// fell short of their total (a job that ended "done" showed 99 %), and images handed to a commit that
        /// holds them a batch showed 1.0 with none completed.
        var fraction: Double {
            guard finished < images else { return 1 }
            let work = total > 0 ? min(Self.unfinished, (done + inFlightDone) / total) : 0
            return max(published, min(Self.unfinished, base + (1 - base) * work))
        }

        /// The most the fraction shows while an image is left (rounded to 4 decimals as the JSON events
        /// carry it, 0.9999; 99 % as a percentage).
        static let unfinished = 0.9999
    }

    /// An image in flight: the cost of its stages done; its encode's first and
    /// last steps since it began or the images in flight last changed (the
    /// encode moves in steps, a segment at a time: its pace is measured from
    /// step to step, and counts down between them); its pace before that change,
    /// scaled to the cores it now shares.
    private struct InFlight {
        var reached = 0.0
        var firstStep: (at: UInt64, reached: Double)?
        var lastStep: (at: UInt64, reached: Double)?
        var earlierPace: Double?

        /// Cost per second from the first step to the last, once they are a second apart.
        var pace: Double? {
            guard let first = firstStep, let last = lastStep, last.at >= first.at + 1_000_000_000 else { return nil }
            return (last.reached - first.reached) / (Double(last.at - first.at) / 1e9)
        }
    }

    private let root: Progress
    private let costs: [StageCost]
    /// Each image's cost, both stages.
    private let totals: [Double]
    /// Images worked on at once: those in flight beyond it wait for their commit, using no core.
    private let workers: Int
    /// The cores they share (``speedUp(sharing:to:cores:)``).
    private let cores: Int
    private let state: Locked<State>
    /// Input pixels of this run's images, for the throughput shown.
    public let pixels: Int
    /// This run's images.
    public var images: Int { costs.count }

    /// Attaches to `root` for this run's images, whose costs are `costs` (in
    /// the order ``begin(_:)`` names them) and input pixels `pixels`, after
    /// earlier runs reached `base` (0 for a new job), `workers` of them at once on `cores` cores.
    public init(root: Progress, costs: [StageCost], pixels: Int, base: Double, workers: Int, cores: Int) {
        self.root = root
        self.costs = costs
        totals = costs.map(\.total)
        self.pixels = pixels
        self.workers = max(workers, 1)
        self.cores = max(cores, 1)
        // Below 1 while images are left (a finished job's status says 1: a resume that redoes a lost write showed 1).
        let base = min(max(base, 0), costs.isEmpty ? 1 : State.unfinished)
        var state = State(base: base, total: totals.reduce(0, +), images: costs.count)
        // Never below what the planning showed (``showPlanning(on:base:done:of:)``).
        state.published = max(base, root.totalUnitCount == Self.resolution ? root.fractionCompleted : 0)
        self.state = Locked(state)
        root.totalUnitCount = Self.resolution
        publish(&state)
    }

    /// The share of the work left that reading every header stands for: enough to move the
    /// fraction while 100,000 headers are read (a stage the watchdog must see), too little to show.
    static let planningShare = 0.001

    /// Shows on `root`, before a ``JobProgress`` attaches to it, that the headers of `done` of `count`
    /// images are read, after earlier runs reached `base`.
    public static func showPlanning(on root: Progress, base: Double, done: Int, of count: Int) {
        root.totalUnitCount = resolution
        let fraction = base + (1 - base) * planningShare * Double(done) / Double(max(count, 1))
        root.completedUnitCount = max(root.completedUnitCount, Int64(fraction * Double(resolution)))
    }

    /// Starts image `index` of the costs.
    public func begin(_ index: Int) -> Item {
        state.withLock { state in
            Self.share(&state, among: state.inFlight.count + 1, workers: workers, cores: cores)
            state.inFlight[index] = InFlight()
            state.next = max(state.next, index + 1)
        }
        return Item(index: index)
    }

    /// How much faster an image goes when the images sharing `cores` cores go from
    /// `before` to `after`: `(before / after)^0.7` while they are no more than the cores. Its
    /// segments run in batches on every core, each batch as slow as its slowest segment: on W1
    /// at level 9 (2 cores), the last image, left alone, went 1.65 × its pace beside another, not
    /// 2 × (with 2 ×, estimates ran 25-37 % short in the last seconds). Beyond the cores
    /// (`--jobs` above them) the images take turns on them: n images go `cores` / n of the pace
    /// of `cores` images each. Counted as `(before / after)^0.7` there too, 8 images on 2 cores
    /// left one 4.3 × faster where the cores allow 6.5 ×, and the end of such a job was
    /// estimated long.
    public static func speedUp(sharing before: Int, to after: Int, cores: Int) -> Double {
        pace(sharing: max(after, 1), cores: cores) / pace(sharing: max(before, 1), cores: cores)
    }

    /// One image's pace among `count` sharing `cores` cores, against its pace alone.
    private static func pace(sharing count: Int, cores: Int) -> Double {
        let cores = max(cores, 1)
        return count <= cores ? pow(Double(count), -0.7) : pow(Double(cores), -0.7) * Double(cores) / Double(count)
    }

    /// The images in flight are about to be `count`: when the images sharing
    /// the cores change (at most `workers`: the rest wait for their commit),
    /// each encode's pace so far is kept, scaled by ``speedUp(sharing:to:cores:)``,
    /// and measured afresh from now.
    private static func share(_ state: inout State, among count: Int, workers: Int, cores: Int) {
        let before = min(state.inFlight.count, workers), after = min(count, workers)
        guard after != before, after > 0 else { return }
        for (index, var image) in state.inFlight where image.lastStep != nil {
            if let pace = image.pace ?? image.earlierPace {
                image.earlierPace = pace * speedUp(sharing: before, to: after, cores: cores)
            }
            image.firstStep = nil
            state.inFlight[index] = image
        }
    }

    /// Marks `fraction` (0…1) of `item`'s render stage done (strips packed so far), after the file read first
    /// where there is one (``advance(_:readingFirst:)``).
    public func advance(_ item: Item, rendering fraction: Double) {
        let cost = costs[item.index]
        // Nothing rendered yet (a writer begun) says nothing of the file read first either.
        guard fraction > 0 else { return }
        move(item, to: cost.firstRead + (cost.render - cost.firstRead) * min(fraction, 1))
    }

    /// Marks `fraction` (0…1) of the file read before `item`'s first row (``StageCost/firstRead``): the part of its
    /// render a progressive JPEG does with no row to show (the rest follows from ``advance(_:rendering:)``).
    public func advance(_ item: Item, readingFirst fraction: Double) {
        move(item, to: costs[item.index].firstRead * min(max(fraction, 0), 1))
    }

    /// Marks `fraction` (0…1) of `item`'s encode stage done (its render stage is done).
    public func advance(_ item: Item, encoding fraction: Double) {
        let cost = costs[item.index]
        move(item, to: cost.render + cost.encode * min(max(fraction, 0), 1), encoding: true)
    }

    /// Marks every stage of `item` done: it is handed to the commit, which may hold it a batch
    /// (a skipped, failed or conflicting image never encoded, and its cost would otherwise
    /// count as work left until then).
    public func handOver(_ item: Item) {
        move(item, to: totals[item.index])
    }

    /// Completes `item` whatever stage it reached (a failed or skipped image counts as done).
    public func finish(_ item: Item) {
        state.withLock { state in
            guard state.inFlight[item.index] != nil else { return }
            Self.share(&state, among: state.inFlight.count - 1, workers: workers, cores: cores)
            guard let image = state.inFlight.removeValue(forKey: item.index) else { return }
            state.inFlightDone -= image.reached
            state.done += totals[item.index]
            state.finished += 1
            publish(&state)
        }
    }

    /// Fraction of the whole job done, earlier runs included.
    public var fraction: Double {
        state.withLock { $0.fraction }
    }

    /// The part of ``fraction`` in images finished (earlier runs' included): what a resume continues
    /// from, the work of the images in flight being lost with the run.
    public var finishedFraction: Double {
        state.withLock { state in
            state.finished == state.images ? 1 : min(State.unfinished, state.base + (1 - state.base) * min(1, state.done / max(state.total, 1e-300)))
        }
    }

    /// The seconds until the last image is done: the images in flight, then those not begun yet,
    /// `workers` at a time on the cores they share (``SharedCores``). An image in flight goes at
    /// its own pace once its encode's steps span a second since it began or the images in flight
    /// last changed (zlib's rows go at a steady rate, whatever the cost model guessed for this
    /// content), counted down from its last step, else at its pace before that change; alone,
    /// ``speedUp(sharing:to:cores:)`` times faster than beside others. An image with no pace yet, or
    /// not begun, goes at `rate` (the job's fraction per second, with every worker busy) shared
    /// among `workers`: alone, at ``speedUp(sharing:to:cores:)`` (`workers` → 1) ÷ `workers` of it.
    /// The job cannot end sooner than this: the work left, the images in hand at the pace they
    /// have shown.
    ///
    /// Rejected on W1 at level 9: the slowest image's own time at the pace it had beside
    /// another (estimates 40-60 % high 4-6 s before the end, once it was left alone); at one
    /// worker's share of the rate before its encode had a pace (one estimate 43 % high when the
    /// image beside it had a tenth of a second left); a pace measured up to now rather than from
    /// step to step (it jumped at each step of a segment batch, about a second apart: estimates
    /// 35-39 % short 3 s before the end); nothing while images wait their turn (the images in
    /// hand then counted only once the last had begun: the ETA ran 20-30 % short 6-10 s before
    /// the end, beyond 35 % in 2 of 290); the images in hand each at its speed alone, summed, and
    /// those waiting at the job's rate (see ``SharedCores``).
    public func secondsLeftInHand(rate: Double) -> Double {
        let now = DispatchTime.now().uptimeNanoseconds
        return state.withLock { state in
            guard state.total > 0, rate > 0 else { return 0 }
            // The job's rate in cost per second, and one image's alone.
            let whole = rate / max(1 - state.base, 1e-9) * state.total
            let aloneSpeed = whole * Self.speedUp(sharing: workers, to: 1, cores: cores) / Double(workers)
            let waiting = state.total - state.done - state.inFlight.keys.reduce(0) { $0 + totals[$1] }
            let sharing = Self.speedUp(sharing: min(state.inFlight.count, workers), to: 1, cores: cores)
            let running = state.inFlight.map { index, image in
                let left = max(totals[index] - image.reached, 0)
                guard let pace = image.pace ?? image.earlierPace, let last = image.lastStep else {
                    return SharedCores.Running(left: left, alone: aloneSpeed)
                }
                // Counted down from its last step, at the pace it has beside the others.
                let since = Double(now - min(now, last.at)) / 1e9
                return SharedCores.Running(left: max(0, left - pace * since), alone: pace * sharing)
            }
            return SharedCores.seconds(running: running, waiting: totals[min(state.next, totals.count)...],
                                       waitingCost: max(waiting, 0), aloneSpeed: aloneSpeed, rate: whole,
                                       workers: workers, cores: cores)
        }
    }

    /// The share of the job this run does (1 less what earlier runs did).
    public var share: Double {
        state.withLock { 1 - $0.base }
    }

    /// Moves an image in flight forward to `done` of its cost (never back: a restarted stage repeats work).
    private func move(_ item: Item, to done: Double, encoding: Bool = false) {
        state.withLock { state in
            guard var image = state.inFlight[item.index], done > image.reached else { return }
            if encoding {
                let step = (at: DispatchTime.now().uptimeNanoseconds, reached: done)
                if image.firstStep == nil { image.firstStep = step }
                image.lastStep = step
            }
            state.inFlightDone += done - image.reached
            image.reached = done
            state.inFlight[item.index] = image
            publish(&state)
        }
    }

    private func publish(_ state: inout State) {
        state.published = state.fraction
        root.completedUnitCount = Int64(state.published * Double(Self.resolution))
    }

    /// One image in flight.
    public struct Item: Sendable {
        fileprivate let index: Int
    }
}
