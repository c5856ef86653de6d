import Foundation
import KilnTestSupport

/// Runs programs with `posix_spawn` + `wait4`, so tests see the exit status and
/// whether a signal killed the process. (Not its memory: Linux carries the
/// spawner's `ru_maxrss` across `exec`; tests measure through GNU `time`.)
/// Output goes through files, so a chatty child can never block on a full pipe,
/// and tests can read what a running child printed so far.
final class ChildProcess {
    /// What a finished run looked like.
    struct Outcome {
        /// Exit status, or nil when a signal ended the process.
        var status: Int32?
        /// The signal that ended it, if any.
        var signal: Int32?
        var stdout: String
        var stderr: String
        /// Whether the run was killed for exceeding its time limit.
        var timedOut: Bool
        /// Wall time from spawn to exit.
        var elapsed: Duration

        /// stdout split into non-empty lines.
        var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    let pid: pid_t
    let started = ContinuousClock.now
    private let scratch: TemporaryDirectory
    private var outcome: Outcome?

    /// Starts `executable` with `arguments`, feeding `stdin`, with extra environment variables.
    init(_ executable: String, _ arguments: [String], stdin: String = "",
         environment: [String: String] = [:], directory: String? = nil) throws {
        scratch = try TemporaryDirectory()
        try stdin.write(toFile: scratch.join("stdin"), atomically: false, encoding: .utf8)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, scratch.join("stdin"), O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, scratch.join("stdout"), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, scratch.join("stderr"), O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        // Glibc's posix_spawn_file_actions_addchdir_np is not imported into Swift; coreutils' env -C stands in.
        let command = directory.map { ["/usr/bin/env", "-C", $0, executable] } ?? [executable]
        let argv = (command + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, command[0], &actions, nil, argv, envp)
        guard rc == 0 else { throw RunnerError.spawn(executable, rc) }
        self.pid = pid
    }

    /// What the child printed on stdout so far.
    var stdoutSoFar: String { (try? String(contentsOfFile: scratch.join("stdout"), encoding: .utf8)) ?? "" }
    /// What the child printed on stderr so far.
    var stderrSoFar: String { (try? String(contentsOfFile: scratch.join("stderr"), encoding: .utf8)) ?? "" }

    /// Sends a signal.
    func send(_ signal: Int32) { kill(pid, signal) }

    /// Waits until `condition` holds (checked every 20 ms) or `timeout` passes; returns whether it held.
    @discardableResult
    func waitUntil(timeout: Duration = .seconds(120), _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            if outcome != nil || hasExited() { return condition() }
            usleep(20_000)
        }
        return false
    }

    /// Waits for the child to exit, killing it after `timeout`.
    func wait(timeout: Duration = .seconds(300)) throws -> Outcome {
        if let outcome { return outcome }
        var status: Int32 = 0
        var timedOut = false
        let deadline = ContinuousClock.now + timeout
        while true {
            let r = wait4(pid, &status, WNOHANG, nil)
            if r == pid { break }
            if r < 0 && errno != EINTR { throw RunnerError.wait(errno) }
            if ContinuousClock.now > deadline && !timedOut {
                timedOut = true
                kill(pid, SIGKILL)
            }
            usleep(2_000)
        }
        let signaled = (status & 0x7f) != 0 && (status & 0x7f) != 0x7f
        let result = Outcome(status: signaled ? nil : (status >> 8) & 0xff, signal: signaled ? status & 0x7f : nil,
                             stdout: stdoutSoFar, stderr: stderrSoFar,
                             timedOut: timedOut, elapsed: ContinuousClock.now - started)
        outcome = result
        return result
    }

    private func hasExited() -> Bool {
        // Peek without reaping: a zombie's /proc state is "Z".
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }

    deinit {
        if outcome == nil {
            kill(pid, SIGKILL)
            _ = try? wait(timeout: .seconds(5))
        }
    }

    enum RunnerError: Error {
        case spawn(String, Int32)
        case wait(Int32)
    }
}

/// Runs a program to completion.
enum ProcessRunner {
    static func run(_ executable: String, _ arguments: [String], stdin: String = "",
                    environment: [String: String] = [:], directory: String? = nil,
                    timeout: Duration = .seconds(120)) throws -> ChildProcess.Outcome {
        try ChildProcess(executable, arguments, stdin: stdin, environment: environment, directory: directory)
            .wait(timeout: timeout)
    }
}
