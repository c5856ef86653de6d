import Foundation

/// What `kiln resume` needs to redo a job exactly: its options, its device
/// choice, and the planned items (so a resumed job never re-reads stdin or
/// re-walks directories that may have changed).
public struct JobRecord: Codable, Sendable, Equatable {
    /// Format version of the journal.
    public var version = 1
    /// The job's identifier (also the task identifier suffix).
    public var id: String
    /// The options the job was started with.
    public var options: ExportOptions
    /// `--device` as given (`auto`, `gpu`, `vulkan`, `cpu`).
    public var device: String
    /// `--title`, when given (otherwise derived when shown: ``defaultTitle(images:)``).
    public var title: String?

    /// The title a job of `images` images shows without `--title`: "Exporting 29 images".
    public static func defaultTitle(images: Int) -> String {
        "Exporting \(images) image\(images == 1 ? "" : "s")"
    }
    /// `--subtitle`, when given (otherwise derived from the operations and device).
    public var subtitle: String?
    /// Every input and its output, in order.
    public var items: [ExportItem]
    /// The directory relative paths (inputs, output) were given from; `resume` runs there.
    public var workingDirectory: String
    /// Keep `.kiln/` after a fully successful run (`--keep-journal`); by default it is removed.
    public var keepJournal: Bool?
    /// The shard this record is, for a job split with `--shard K/N` (nil for a whole job).
    public var shard: ShardRecord?
    /// The profile files a journal of kiln before 2026-11-28 recorded beside the plan (since, in
    /// ``ExportPlan/files``): still checked by a resume of such a job. Nil in a new record.
    public var profiles: [FileFingerprint]?

    /// A record of a job started from the current directory.
    public init(id: String, options: ExportOptions, device: String, title: String?, subtitle: String?,
                items: [ExportItem]) {
        self.workingDirectory = FileManager.default.currentDirectoryPath
        self.id = id
        self.options = options
        self.device = device
        self.title = title
        self.subtitle = subtitle
        self.items = items
    }
}

/// One finished item in the journal.
public struct FinishedRecord: Codable, Sendable, Equatable {
    /// The output path relative to the output directory.
    public var output: String
    /// `written`, `skipped`, `conflict` or `failed`.
    public var status: FileResult.Status
    /// Size in bytes of the written output (0 otherwise).
    public var size: Int
    /// CRC-32 of the written output (0 otherwise).
    public var crc32: UInt32
    /// Why it failed, when it did.
    public var error: String?
    /// What made the output (written, or skipped as identical work); nil in journals of older versions.
    public var made: Provenance? = nil
    /// The input file that made it, as it was (`DEVICE-INODE-CTIME`), where it was written or found
    /// the same work by comparison: the user cache's records (``MadeCache``) count only for that
    /// file. A skip of a recorded output keeps its record's. nil with `--in-place` and in older journals.
    public var input: String? = nil

    /// A record of one finished item.
    public init(output: String, status: FileResult.Status, size: Int, crc32: UInt32, error: String?,
                made: Provenance? = nil, input: String? = nil) {
        self.output = output
        self.status = status
        self.size = size
        self.crc32 = crc32
        self.error = error
        self.made = made
        self.input = input
    }

    /// Whether it records a file kiln left there (written, or found to be this work: skipped), with what made it.
    var standsForAFile: Bool { (status == .written || status == .skipped) && made != nil && size > 0 }
}

/// The live state of a job, rewritten a few times a second for `kiln status`.
public struct LiveStatus: Codable, Sendable, Equatable {
    /// Where a job is in its life.
    public enum State: String, Codable, Sendable {
        /// Waiting for a machine slot.
        case queued
        /// Exporting.
        case running
        /// Asked to stop; finishing what is in flight.
        case stopping
        /// Stopped by job control (Ctrl-Z, SIGTSTP); `fg` continues it.
        case suspended
        /// Stopped before the end; `kiln resume` continues.
        case stopped
        /// Every item finished.
        case finished
    }

    /// The process running the job.
    public var pid: Int32
    /// Where the job is.
    public var state: State
    /// The device in use, as shown to the user.
    public var device: String
    /// The title shown to the user.
    public var title: String
    /// The subtitle shown to the user.
    public var subtitle: String
    /// Items in the plan.
    public var total: Int
    /// Items finished.
    public var completed: Int
    /// Outputs written.
    public var written: Int
    /// Outputs skipped.
    public var skipped: Int
    /// Items failed, or kept as conflicting outputs.
    public var failed: Int
    /// Fraction of the work done, weighted by pixels.
    public var fraction: Double
    /// The part of ``fraction`` in images finished: where a resume continues from (the images in flight are
    /// redone, so the work they had reached is not counted twice); nil from kiln versions before it.
    public var finishedFraction: Double?
    /// Position in the machine's queue while queued.
    public var queuePosition: Int?
    /// While queued, the jobs holding the machine's slots (what this one waits for).
    public var waitingFor: [MachineSlots.Holder]?
    /// The job's memory budget in bytes (`--memory`); nil from kiln versions before it.
    public var memory: Int?
    /// Seconds since 1970 of this update.
    public var updated: Double
    /// The machine running the job (`kiln cancel` signals only its own host's processes).
    public var host: String?
    /// Seconds since 1970 when this run started exporting.
    public var started: Double?
    /// Images finished by this run per second since it started.
    public var imagesPerSecond: Double?
    /// Pixels decoded by this run per second since it started.
    public var pixelsPerSecond: Double?
    /// Why the job stopped before the end on its own (a full disk), when it did.
    public var reason: String?
    /// Outputs kept as conflicts (counted in ``failed`` too); nil from kiln versions before it.
    public var conflicts: Int?
    /// The exit code the run ended with (as the `end` event says), once it ended; nil while
    /// it runs, for a run that died without ending (kill -9), and from kiln versions before it.
    public var exitCode: Int32?
    /// The inputs in the workers' hands when the run expired for want of progress (the stall
    /// watchdog); nil when it did not.
    public var stalledOn: [String]?
    /// Those of ``stalledOn`` that the run before stalled on too: the next run leaves them out.
    public var stalledTwice: [String]?
    /// The desktop notification this run shows, for the next run in the folder to replace: one killed (kill -9,
    /// a crash) left its own on the screen, "Exporting … 40 %" with a Cancel that no longer did anything.
    public var notification: ShownNotification?

    /// A status.
    public init(pid: Int32, state: State, device: String, title: String, subtitle: String, total: Int, completed: Int, written: Int, skipped: Int,
                failed: Int, fraction: Double, queuePosition: Int?, memory: Int? = nil, updated: Double) {
        self.pid = pid
        self.state = state
        self.device = device
        self.title = title
        self.subtitle = subtitle
        self.total = total
        self.completed = completed
        self.written = written
        self.skipped = skipped
        self.failed = failed
        self.fraction = fraction
        self.queuePosition = queuePosition
        self.memory = memory
        self.updated = updated
    }

    /// The part of the work in images finished once `recorded` images have their records: ``finishedFraction``,
    /// and each image recorded since this publication (a run killed between two, which come at most twice a
    /// second, or mid-batch) counted as an average one of those it had left. `kiln status` of a killed job said
    /// "13/20 done (29%)" of 20 images alike, the counts from the journal and the percentage from here.
    public func finishedFraction(recorded: Int) -> Double {
        let base = finishedFraction ?? fraction
        guard recorded > completed, total > completed else { return base }
        return min(1, base + Double(recorded - completed) * (1 - base) / Double(total - completed))
    }
}

/// A freedesktop notification a run showed, and where: the session bus (its id, `org.freedesktop.DBus.GetId`) and the
/// notification server on it (its unique name), so that a later run replaces it only on that very server (another
/// bus, or a server started since, numbers its own notifications from 1: replacing "4" there replaced another's).
public struct ShownNotification: Codable, Sendable, Equatable {
    /// The bus's id.
    public var bus: String
    /// The server's unique name on it (`:1.25`).
    public var server: String
    /// The notification's id on that server.
    public var id: UInt32

    /// The notification `id` shown by `server` on `bus`.
    public init(bus: String, server: String, id: UInt32) {
        self.bus = bus
        self.server = server
        self.id = id
    }
}
