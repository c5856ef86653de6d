import Foundation

extension JobLock {
    /// Whether process `pid` of this host stands stopped (state `T` in `/proc/PID/stat`: a SIGSTOP, as Slurm's
    /// `scontrol suspend` and a preempting scheduler send, which kiln cannot catch, so its status says nothing of
    /// it). False when the file cannot be read. `kiln status` then says the job is suspended, as after a Ctrl-Z, and
    /// `kiln cancel` continues it so that it can take the stop (before, it said it had asked, and nothing moved).
    public static func isStopped(_ pid: pid_t) -> Bool {
        guard pid > 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        // "1234 (kiln) T 1 …": the state follows the command's name, which may itself hold spaces and parentheses.
        return stat[stat.index(after: close)...].split(separator: " ").first == "T"
    }
}
