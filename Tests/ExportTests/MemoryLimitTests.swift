@testable import Export
import Testing

/// The default budget follows the memory limit of this process's own cgroup and of those above it, not only the
/// top of the tree's (a Slurm job's cgroup, a `systemd-run -p MemoryMax=` scope on a host were missed).
@Suite struct MemoryLimitTests {
    @Test func aNestedCgroupsLimitIsFound() {
        let v2 = ["/sys/fs/cgroup/user.slice/job.scope/memory.max": "max\n",
                  "/sys/fs/cgroup/user.slice/memory.max": "2147483648\n"]
        #expect(MemoryLimit.cgroupLimit(membership: "0::/user.slice/job.scope\n") { v2[$0] } == 2_147_483_648)
        // Slurm's v1 hierarchy, the lowest limit of the way up; a hybrid host's v2 line finds no memory.max.
        let v1 = ["/sys/fs/cgroup/memory/slurm/uid_0/job_5/memory.limit_in_bytes": "1073741824",
                  "/sys/fs/cgroup/memory/slurm/memory.limit_in_bytes": "4294967296",
                  "/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712"]
        #expect(MemoryLimit.cgroupLimit(membership: "4:memory:/slurm/uid_0/job_5\n0::/\n") { v1[$0] } == 1_073_741_824)
        #expect(MemoryLimit.cgroupLimit(membership: "3:cpu,memory:/slurm/uid_0/job_5\n") { v1[$0] } == 1_073_741_824)
        // A container's view: its path is not there, its own limit is the top's.
        let container = ["/sys/fs/cgroup/memory.max": "536870912\n"]
        #expect(MemoryLimit.cgroupLimit(membership: "0::/docker/abc\n") { container[$0] } == 536_870_912)
        // No limit anywhere, and no membership to read (the top of the tree then).
        #expect(MemoryLimit.cgroupLimit(membership: "0::/\n") { _ in "max" } == nil)
        #expect(MemoryLimit.cgroupLimit(membership: nil) { container[$0] } == 536_870_912)
    }
}

/// A budget is said as it was given where it is a whole number of a unit: `--memory 1750M` was said as "1.7 GB" beside
/// an image that needed "about 1.7 GB".
@Suite struct BudgetTextTests {
    @Test func aBudgetIsSaidAsGiven() {
        #expect(ByteSize.budgetText(1750 << 20) == "1750 MB")
        #expect(ByteSize.budgetText(2 << 30) == "2 GB")
        #expect(ByteSize.budgetText(ByteSize.parse("1.5G")!) == "1536 MB")
        #expect(ByteSize.budgetText(12_638_255_104) == ByteSize.text(12_638_255_104))
    }
}
