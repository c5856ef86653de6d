import ContinuedProcessing
import Export
import Foundation
import Synchronization

/// Watches a job's cancel mark (`OUTPUT/.kiln/cancelled`, left by `kiln cancel`
/// for every shard of a sharded job, and for a whole job running on another
/// host than cancel's) and, when it appears, stops this job exactly as
/// Ctrl-C would, through the user's ``TaskActions`` (a SIGINT to this process, so the
/// lifecycle takes no new image, lets the images in flight finish within `--grace`, and exits 75).
///
/// A file rather than a signal because `kiln cancel` can only signal processes
/// on its own host; every shard reads the shared output directory.
final class CancelWatch: Sendable {
    private let outputDirectory: String
    private let running = Atomic<Bool>(true)
    private let user: TaskActions
    /// How often the mark is looked for: often enough to stop at the next image, cheap on NFS.
    static let interval: useconds_t = 250_000

    /// Watches `outputDirectory`; `user` cancels as the user's Ctrl-C does.
    init(outputDirectory: String, user: TaskActions) {
        self.outputDirectory = outputDirectory
        self.user = user
    }

    /// Starts watching on a thread of its own.
    func start() {
        Thread.detachNewThread { [self] in
            while running.load(ordering: .relaxed) {
                if ShardLayout.cancelMark(outputDirectory) != nil {
                    user.cancel()
                    return
                }
                usleep(Self.interval)
            }
        }
    }

    /// Stops watching.
    func stop() {
        running.store(false, ordering: .relaxed)
    }
}
