import Foundation

extension ProcessLifecycle {
    /// The hooks and timings of a ``ProcessLifecycle``; every member has a default.
    public struct Options: Sendable {
        /// Runs on SIGTSTP before the process stops: flush journals and output. Default: nothing.
        public var onSuspend: @Sendable () -> Void
        /// Runs after SIGCONT, once the process runs again. Default: nothing.
        public var onResume: @Sendable () -> Void
        /// Runs on the second SIGINT, or a first that comes once the work is stopping (a SIGTERM or SIGHUP came
        /// first, or ``isStopping`` says so): stop at once (outputs must still never be half-written).
        /// Default: `exit(130)`, the shell's code for an interrupt.
        public var onStopNow: @Sendable () -> Void
        /// Whether the work is stopping for a reason no signal gave (a stall, a cancel mark): a SIGINT then stops
        /// it at once. Default: never.
        public var isStopping: @Sendable () -> Bool
        /// Receives every change of ``ProcessLifecycle/processState``. Default: nothing.
        public var onStateChange: @Sendable (ProcessState) -> Void
        /// Whether the process is in the foreground. Default: ``ProcessLifecycle/isForegroundOfTerminal()``.
        public var isForeground: @Sendable () -> Bool
        /// How often the foreground check runs besides on SIGCONT. Default 1 s.
        public var foregroundCheckInterval: Duration
        /// How much the nice value rises in the background (capped at 19). Default 10.
        public var backgroundNiceIncrement: Int32
        /// Receives diagnostics, such as a priority that could not be raised back. Default: discard.
        public var log: @Sendable (String) -> Void

        /// Creates the default options.
        public init() {
            onSuspend = {}
            onResume = {}
            onStopNow = { exit(130) }
            isStopping = { false }
            onStateChange = { _ in }
            isForeground = ProcessLifecycle.isForegroundOfTerminal
            foregroundCheckInterval = .seconds(1)
            backgroundNiceIncrement = 10
            log = { _ in }
        }
    }

    /// Whether the process group owns its terminal. A process with no terminal on
    /// standard input counts as foreground: there is no shell to be in the background of.
    @Sendable public static func isForegroundOfTerminal() -> Bool {
        let owner = tcgetpgrp(STDIN_FILENO)
        return owner == -1 || owner == getpgrp()
    }
}
