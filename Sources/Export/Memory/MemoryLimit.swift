import Foundation

/// What memory this process may use: the smaller of the machine's and its
/// control group's limit (a container's `--memory`, a Kubernetes limit, a
/// Slurm job's `--mem`), for the default `--memory`.
public enum MemoryLimit {
    /// The share of the available memory a job takes by default: half, leaving
    /// room for the page cache its reads and writes go through, and for other work.
    public static let defaultShare = 0.5

    /// The default budget: `defaultShare` of `available`.
    public static var defaultBudget: Int { Int(Double(available) * defaultShare) }

    /// The machine's physical memory, or the cgroup's limit when lower.
    public static var available: Int {
        let physical = Int(ProcessInfo.processInfo.physicalMemory)
        return min(physical, cgroupLimit ?? physical)
    }

    /// The limit of this process's cgroup (v2 `memory.max`, else v1 `memory.limit_in_bytes`), if any.
    static var cgroupLimit: Int? {
        for path in ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"] {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            // "max" (v2) or a huge number (v1) mean no limit.
            if let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), value < Int.max / 2 { return value }
        }
        return nil
    }

    /// This process's resident memory now (`/proc/self/statm`), or 0 where unknown.
    public static var resident: Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
