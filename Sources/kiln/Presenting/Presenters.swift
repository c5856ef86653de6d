import ContinuedProcessing
import Foundation

extension RunSettings {
    /// The views outside the terminal that show this job: a desktop notification per `--notify`,
    /// and systemd's status under `NOTIFY_SOCKET`. `warn` tells the user of a view that stopped working.
    func makePresenters(environment: [String: String] = ProcessInfo.processInfo.environment,
                        warn: @escaping @Sendable (String) -> Void) -> [any TaskPresenter] {
        var presenters: [any TaskPresenter] = []
        switch notify {
        case .desktop: presenters.append(DesktopPresenter(warnIfUnreachable: true, environment: environment, warn: warn))
        case .auto where Self.hasSessionBus(environment) && !showsBar:
            presenters.append(DesktopPresenter(warnIfUnreachable: false, environment: environment, warn: warn))
        case .auto, .none: break
        }
        let stopBudget = schedulerConfiguration.expirationGrace + schedulerConfiguration.criticalBudget
        if let systemd = SystemdPresenter(environment: environment, stopBudget: stopBudget) { presenters.append(systemd) }
        return presenters
    }

    /// Whether a session bus is there to try: `DBUS_SESSION_BUS_ADDRESS`, or the user bus socket
    /// `$XDG_RUNTIME_DIR/bus` that libdbus falls back to.
    private static func hasSessionBus(_ environment: [String: String]) -> Bool {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return true }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return false }
        var info = stat()
        return stat(runtime + "/bus", &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
    }
}
