import Foundation
import Locking

/// The job's progress, weighted by pixels, published on the task's `Progress`.
///
/// An image's pixel count is learned when the image is read (no file is opened
/// before its turn: a batch of 100,000 files starts at once). Until then an
/// image weighs the mean of those read so far, so for images of one size the
/// fraction is exact from the start, and for mixed sizes it converges as the
/// job reads them. Each image moves through 100 steps: 80 while it is decoded
/// and rendered (they stream together, strip by strip), 20 when it is encoded
/// and written.
///
/// The state is a few counters under one lock, whatever the batch size: no
/// `Progress` object per image (Foundation's `Progress` has no locking on
/// Linux, and children would grow with the batch). The root's counts are
/// updated under the same lock; observers use ``fraction``.
// Unchecked: `progress` (Foundation, not Sendable) and the weights are only touched under `state`'s lock.
public final class PixelProgress: @unchecked Sendable {
    /// The stages of one image: the steps done when each ends.
    public enum Stage: Int64, Sendable {
        case rendered = 80, written = 100
    }

    /// The root's total, in units: fine enough that every step moves it.
    private static let resolution: Int64 = 1 << 40

    private struct State {
        var items: Int
        /// Items finished whose weight is known, and their pixels.
        var doneWeighed = 0, donePixels: Int64 = 0
        /// Items finished without a weight (earlier runs', unreadable ones).
        var doneUnweighed = 0
        /// Items weighed (finished or not) and their pixels: the mean weight.
        var weighed = 0, weighedPixels: Int64 = 0
        /// Images in flight: weight (nil until read) and stage.
        var inFlight: [Int: (pixels: Int64?, stage: Int64)] = [:]
        /// Over the images in flight: Σ pixels × stage of the weighed, Σ stage of the others
        /// (kept as sums so that a step costs the same however many images wait for their commit).
        var weighedSteps: Int64 = 0, unweighedSteps: Int64 = 0
        var nextID = 0

        var mean: Double { weighed == 0 ? 1 : Double(weighedPixels) / Double(weighed) }

        var fraction: Double {
            let mean = self.mean
            let done = Double(donePixels) + Double(doneUnweighed) * mean
                + (Double(weighedSteps) + Double(unweighedSteps) * mean) / Double(Stage.written.rawValue)
            return items == 0 ? 1 : min(1, done / (Double(items) * mean))
        }

        /// Moves an image in flight to `stage` (removing it when nil), keeping the sums.
        mutating func update(_ id: Int, stage: Int64?) {
            guard let current = inFlight[id] else { return }
            let delta = (stage ?? 0) - current.stage
            if let pixels = current.pixels { weighedSteps += pixels * delta } else { unweighedSteps += delta }
            inFlight[id] = stage.map { (current.pixels, $0) }
        }
    }

    private let root: Progress
    private let state: Locked<State>

    /// Attaches to `root` for a job of `items` images of which `doneItems` are already done (by an earlier run).
    public init(root: Progress, items: Int, doneItems: Int) {
        self.root = root
        var state = State(items: items)
        state.doneUnweighed = doneItems
        self.state = Locked(state)
        root.totalUnitCount = Self.resolution
        publish(state)
    }

    /// Starts one image (its weight not known yet).
    public func begin() -> Item {
        state.withLock { state in
            state.nextID += 1
            state.inFlight[state.nextID] = (nil, 0)
            return Item(id: state.nextID)
        }
    }

    /// Gives `item` its weight, once its header is read.
    public func weigh(_ item: Item, pixels: Int) {
        let pixels = Int64(max(1, pixels))
        state.withLock { state in
            guard let current = state.inFlight[item.id], current.pixels == nil else { return }
            state.unweighedSteps -= current.stage
            state.weighedSteps += pixels * current.stage
            state.inFlight[item.id] = (pixels, current.stage)
            state.weighed += 1
            state.weighedPixels += pixels
        }
    }

    /// Marks `stage` of `item` done.
    public func advance(_ item: Item, to stage: Stage) {
        state.withLock { state in
            state.update(item.id, stage: stage.rawValue)
            publish(state)
        }
    }

    /// Marks `fraction` (0…1) of `item`'s rendering done (strips packed so far).
    public func advance(_ item: Item, rendering fraction: Double) {
        let steps = min(max(Int64((fraction * Double(Stage.rendered.rawValue)).rounded(.down)), 0), Stage.rendered.rawValue)
        state.withLock { state in
            state.update(item.id, stage: steps)
            publish(state)
        }
    }

    /// Completes `item` whatever stage it reached (a failed or skipped image counts as done).
    public func finish(_ item: Item) {
        state.withLock { state in
            guard let current = state.inFlight[item.id] else { return }
            state.update(item.id, stage: nil)
            if let pixels = current.pixels {
                state.doneWeighed += 1
                state.donePixels += pixels
            } else {
                state.doneUnweighed += 1
            }
            publish(state)
        }
    }

    /// Fraction of all pixels done, including the images in flight.
    public var fraction: Double {
        state.withLock { $0.fraction }
    }

    private func publish(_ state: State) {
        root.completedUnitCount = Int64(state.fraction * Double(Self.resolution))
    }

    /// One image in flight.
    public struct Item: Sendable {
        fileprivate let id: Int
    }
}
