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

    /// The machine's physical memory, or the cgroup's limit when lower: read once (a job asks it several times at its
    /// start, and the cgroup's is a walk up its tree).
    public static let available: Int = {
        let physical = Int(ProcessInfo.processInfo.physicalMemory)
        return min(physical, cgroupLimit ?? physical)
    }()

    /// The limit of this process's cgroup: the lowest `memory.max` (v2) or `memory.limit_in_bytes` (v1) of the
    /// cgroup `/proc/self/cgroup` names and of every one above it, if any. Before, only the files at the top of the
    /// tree were read: right in a container (its own cgroup is its top), but a Slurm job's cgroup or a `systemd-run
    /// -p MemoryMax=` scope on a host was missed, the default budget was half the machine's memory, and the kernel
    /// killed kiln (out of memory) where it would have admitted fewer images at once.
    static var cgroupLimit: Int? {
        cgroupLimit(membership: try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)) {
            try? String(contentsOfFile: $0, encoding: .utf8)
        }
    }

    /// ``cgroupLimit`` from `membership` (`/proc/self/cgroup`: "0::/PATH" for v2, "N:memory:/PATH" or
    /// "N:cpu,memory:/PATH" for v1) and the files `read` returns; without a membership, the top of the tree.
    static func cgroupLimit(membership: String?, read: (String) -> String?) -> Int? {
        var places: [(root: String, file: String, path: String)] = []
        for line in (membership ?? "").split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, fields[2].hasPrefix("/") else { continue }
            if fields[0] == "0" && fields[1].isEmpty {
                places.append(("/sys/fs/cgroup", "memory.max", String(fields[2])))
            } else if fields[1].split(separator: ",").contains("memory") {
                places.append(("/sys/fs/cgroup/memory", "memory.limit_in_bytes", String(fields[2])))
            }
        }
        if places.isEmpty {
            places = [("/sys/fs/cgroup", "memory.max", "/"), ("/sys/fs/cgroup/memory", "memory.limit_in_bytes", "/")]
        }
        var limits: [Int] = []
        for (root, file, path) in places {
            // The cgroup and each one above it; a folder that is not there (a container's view of a path outside
            // it) says nothing.
            var components = path.split(separator: "/").map(String.init)
            while true {
                let folder = root + components.map { "/" + $0 }.joined()
                // "max" (v2) or a huge number (v1) mean no limit.
                if let text = read(folder + "/" + file),
                   let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), value < Int.max / 2 {
                    limits.append(value)
                }
                guard !components.isEmpty else { break }
                components.removeLast()
            }
        }
        return limits.min()
    }

    /// This process's resident memory now (`/proc/self/statm`), or 0 where unknown.
    public static var resident: Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
