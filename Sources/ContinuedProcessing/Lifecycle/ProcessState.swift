/// Where a command-line process is in its life, mapped onto the app states of iOS.
public enum ProcessState: String, Sendable, Equatable {
    /// In the foreground process group of its terminal, or with no terminal (iOS: active).
    case active
    /// Running in the background of a shell, at lower CPU priority (iOS: background).
    case background
    /// Stopped by SIGTSTP or SIGSTOP (iOS: suspended).
    case suspended
    /// Asked to end by SIGTERM or Ctrl-C; tasks are expiring (iOS: about to be terminated).
    case terminating
}
