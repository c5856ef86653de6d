import Foundation

/// Runs a program to completion with `posix_spawn` + `wait4`, so tests see its
/// exit status, whether a signal killed it, and its peak memory (`ru_maxrss`) —
/// which `Foundation.Process` does not report. Output goes through files, so a
/// chatty child can never block on a full pipe.
struct ProcessRunner {
    /// What a finished run looked like.
    struct Outcome {
        /// Exit status, or nil when a signal ended the process.
        var status: Int32?
        /// The signal that ended it, if any.
        var signal: Int32?
        var stdout: String
        var stderr: String
        /// Peak resident set size in KiB.
        var maxRSSKiB: Int
        /// Whether the run was killed for exceeding its time limit.
        var timedOut: Bool
        /// Wall time.
        var elapsed: Duration

        /// stdout split into non-empty lines.
        var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    /// Runs `executable` with `arguments`, feeding `stdin`, with extra environment
    /// variables, killing it after `timeout`.
    static func run(_ executable: String, _ arguments: [String], stdin: String = "",
                    environment: [String: String] = [:], directory: String? = nil,
                    timeout: Duration = .seconds(120)) throws -> Outcome {
        let scratch = try TemporaryDirectory()
        let inPath = scratch.path + "/stdin", outPath = scratch.path + "/stdout", errPath = scratch.path + "/stderr"
        try stdin.write(toFile: inPath, atomically: false, encoding: .utf8)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        // Glibc's posix_spawn_file_actions_addchdir_np is not imported into Swift; coreutils' env -C is the portable stand-in.
        let command = directory.map { ["/usr/bin/env", "-C", $0, executable] } ?? [executable]
        let argv = (command + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        var pid: pid_t = 0
        let start = ContinuousClock.now
        let rc = posix_spawn(&pid, command[0], &actions, nil, argv, envp)
        guard rc == 0 else { throw RunnerError.spawn(executable, rc) }

        var status: Int32 = 0
        var usage = rusage()
        var timedOut = false
        while true {
            let r = wait4(pid, &status, WNOHANG, &usage)
            if r == pid { break }
            if r < 0 && errno != EINTR { throw RunnerError.wait(errno) }
            if ContinuousClock.now - start > timeout && !timedOut {
                timedOut = true
                kill(pid, SIGKILL)
            }
            usleep(2_000)
        }
        let elapsed = ContinuousClock.now - start
        let signaled = (status & 0x7f) != 0 && (status & 0x7f) != 0x7f
        return Outcome(
            status: signaled ? nil : (status >> 8) & 0xff,
            signal: signaled ? status & 0x7f : nil,
            stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "",
            maxRSSKiB: usage.ru_maxrss,
            timedOut: timedOut,
            elapsed: elapsed)
    }

    enum RunnerError: Error {
        case spawn(String, Int32)
        case wait(Int32)
    }
}
