import Export
import Foundation
import Synchronization

/// Watches a job's cancel mark (`OUTPUT/.kiln/cancelled`, left by `kiln cancel`
/// for every shard of a sharded job, and for a whole job running on another
/// host than cancel's) and, when it appears, stops this job exactly as
/// Ctrl-C would: a SIGINT to this process, so the lifecycle takes no new image,
/// lets the images in flight finish within `--grace`, and exits 75.
///
/// A file rather than a signal because `kiln cancel` can only signal processes
/// on its own host; every shard reads the shared output directory.
final class CancelWatch: Sendable {
    private let outputDirectory: String
    private let running = Atomic<Bool>(true)
    private let isStopping: @Sendable () -> Bool
    /// How often the mark is looked for: often enough to stop at the next image, cheap on NFS.
    static let interval: useconds_t = 250_000

    /// Watches `outputDirectory`; `isStopping` says the process is already stopping (then nothing is sent:
    /// a second SIGINT would abandon the images in flight).
    init(outputDirectory: String, isStopping: @escaping @Sendable () -> Bool) {
        self.outputDirectory = outputDirectory
        self.isStopping = isStopping
    }

    /// Starts watching on a thread of its own.
    func start() {
        Thread.detachNewThread { [self] in
            while running.load(ordering: .relaxed) {
                if ShardLayout.cancelMark(outputDirectory) != nil {
                    if !isStopping() { kill(getpid(), SIGINT) }  // once: a second one would abandon the images in flight
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
