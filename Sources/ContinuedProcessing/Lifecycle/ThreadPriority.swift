import Foundation

/// Nice values of the whole process.
///
/// On Linux the nice value belongs to each thread, and `setpriority(PRIO_PROCESS, 0, …)`
/// changes only the calling thread, so every thread listed in `/proc/self/task` is set.
/// Threads created later inherit the value of the thread that creates them.
enum ThreadPriority {
    /// `PRIO_PROCESS`, which with a thread id addresses that one thread.
    private static let processScope = __priority_which_t(PRIO_PROCESS.rawValue)

    /// The nice value of the calling thread.
    static func current() -> Int32 {
        errno = 0
        let value = getpriority(processScope, 0)
        return errno == 0 ? value : 0
    }

    /// Sets `nice` on every thread of the process. Returns the first error number, or nil.
    ///
    /// Raising the priority back (a lower nice value) needs `CAP_SYS_NICE` or a sufficient
    /// `RLIMIT_NICE`; unprivileged users usually get `EACCES`.
    static func setAll(_ nice: Int32) -> Int32? {
        var failure: Int32?
        for thread in threadIDs() where setpriority(processScope, thread, nice) != 0 {
            if errno != ESRCH, failure == nil { failure = errno }  // ESRCH: the thread just ended.
        }
        return failure
    }

    private static func threadIDs() -> [id_t] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        let ids = names.compactMap { id_t($0) }
        return ids.isEmpty ? [id_t(getpid())] : ids
    }
}
