import Foundation

/// The process's open-file limit (`RLIMIT_NOFILE`) and the share of it that
/// staged outputs may hold.
///
/// At `--durability batch` each finished image waits for its group commit with
/// its output staged in an open, unnamed file; with the waiting bounded only by
/// a constant (512 then), `ulimit -Sn 256` made 76,415 of 100,000 images fail
/// with "Too many open files". Now the kiln executable raises the soft limit
/// (``raiseSoftLimit()``) and the group commit bounds what it holds by
/// ``stagingBudget(workers:)``, taken from the limit in force: batch durability
/// works under any limit, only with smaller batches under a small one.
public enum OpenFiles {
    /// The soft limit kiln asks for: what the most it ever holds needs (a full
    /// group commit, its waiting images and every worker's files) with room to
    /// spare. A higher soft limit is left as it is; more is not asked for,
    /// because some code walks every possible descriptor (closing them before
    /// `exec`, for one) and a limit of a million makes that slow.
    static let wanted: rlim_t = 4096

    /// Raises the soft open-file limit towards ``wanted``, never above the hard
    /// limit and never lowering it (an unprivileged process may raise its soft
    /// limit up to the hard one). Returns the soft limit now in force.
    @discardableResult
    public static func raiseSoftLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return softLimit }
        let target = min(limit.rlim_max, wanted)
        if limit.rlim_cur < target {
            limit.rlim_cur = target
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return softLimit
    }

    /// The soft open-file limit in force (`RLIMIT_NOFILE`; 1024 if it cannot be read).
    public static var softLimit: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return Int(clamping: limit.rlim_cur)  // RLIM_INFINITY (all ones) clamps to Int.max
    }

    /// Descriptors open now (entries of `/proc/self/fd`, less the one listing it);
    /// a third of the soft limit when that cannot be listed.
    static var openNow: Int {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else {
            return softLimit / 3
        }
        return max(0, entries.count - 1)
    }

    /// Descriptors each worker may hold besides a staged output: its input, a
    /// temporary file where unnamed files are not made, the decoder's and the
    /// colour code's own.
    static let perWorker = 4
    /// Descriptors kept free for the rest of the job: the journal, status file,
    /// slot and lock files opened later, the Vulkan driver's, the reporters'.
    static let reserve = 48

    /// How many staged outputs may be open at once, for a job with `workers`
    /// workers, from the soft limit in force less what is open now and the
    /// room the job needs besides (at least 2: one committing, one waiting).
    static func stagingBudget(workers: Int) -> Int {
        let free = softLimit - openNow - reserve - perWorker * workers
        return max(2, free)
    }
}
