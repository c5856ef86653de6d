import Foundation
import Synchronization

/// The job's `Progress` tree, weighted by pixels: the root (the task's
/// `progress`) counts pixels; each image in flight is a child of 100 units —
/// 80 for decoding and rendering, which stream together and advance strip by
/// strip, 20 for encoding and writing — attached with its pixel count as pending units.
///
/// Foundation's `Progress` has no locking on Linux, so every mutation and
/// every read made here goes through one lock; observers use ``fraction``.
public final class PixelProgress: @unchecked Sendable {
    /// The stages of one image: the units of its child progress done when each ends.
    public enum Stage: Int64, Sendable {
        case rendered = 80, written = 100
    }

    private let root: Progress
    private let lock = Mutex(())

    /// Attaches to `root`, whose total becomes `totalPixels` with `donePixels` already complete.
    public init(root: Progress, totalPixels: Int64, donePixels: Int64) {
        self.root = root
        root.totalUnitCount = max(1, totalPixels)
        root.completedUnitCount = donePixels
    }

    /// A child for one image of `pixels` pixels.
    public func begin(pixels: Int64) -> Item {
        lock.withLock { _ in
            let child = Progress(totalUnitCount: Stage.written.rawValue)
            root.addChild(child, withPendingUnitCount: max(1, pixels))
            return Item(progress: child)
        }
    }

    /// Marks `stage` of `item` done.
    public func advance(_ item: Item, to stage: Stage) {
        lock.withLock { _ in item.progress.completedUnitCount = stage.rawValue }
    }

    /// Marks `fraction` (0…1) of `item`'s rendering done (strips packed so far).
    public func advance(_ item: Item, rendering fraction: Double) {
        let units = Int64((fraction * Double(Stage.rendered.rawValue)).rounded(.down))
        lock.withLock { _ in item.progress.completedUnitCount = min(max(units, 0), Stage.rendered.rawValue) }
    }

    /// Completes `item` whatever stage it reached (a failed or skipped image counts as done).
    public func finish(_ item: Item) {
        advance(item, to: .written)
    }

    /// Fraction of all pixels done, including the images in flight.
    public var fraction: Double {
        lock.withLock { _ in root.fractionCompleted }
    }

    /// One image's child progress.
    public struct Item: @unchecked Sendable {
        fileprivate let progress: Progress
    }
}
