import Foundation
import Synchronization

/// The job's `Progress` tree, weighted by pixels: the root (the task's
/// `progress`) counts pixels; each image in flight is a child with three
/// units — decoded, rendered, encoded and written — attached with its pixel
/// count as pending units.
///
/// Foundation's `Progress` has no locking on Linux, so every mutation and
/// every read made here goes through one lock; observers use ``fraction``.
public final class PixelProgress: @unchecked Sendable {
    /// The stages of one image, each one unit of its child progress.
    public enum Stage: Int64, Sendable {
        case decoded = 1, rendered, written
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
            let child = Progress(totalUnitCount: 3)
            root.addChild(child, withPendingUnitCount: max(1, pixels))
            return Item(progress: child)
        }
    }

    /// Marks `stage` of `item` done.
    public func advance(_ item: Item, to stage: Stage) {
        lock.withLock { _ in item.progress.completedUnitCount = stage.rawValue }
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
