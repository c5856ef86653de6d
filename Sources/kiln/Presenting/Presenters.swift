import ContinuedProcessing
import Foundation

extension RunSettings {
    /// The views outside the terminal that show this job: per `--notify`, a KDE job view where a job view
    /// server is on the session bus, else a desktop notification; and systemd's status under `NOTIFY_SOCKET`.
    /// `warn` tells the user of a view that stopped working.
    func makePresenters(environment: [String: String] = ProcessInfo.processInfo.environment,
                        warn: @escaping @Sendable (String) -> Void) -> [any TaskPresenter] {
        var presenters: [any TaskPresenter] = []
        switch notify {
        case .desktop: presenters.append(Self.desktopPresenter(warnIfUnreachable: true, environment: environment, warn: warn))
        case .auto where Self.hasSessionBus(environment) && !showsBar:
            presenters.append(Self.desktopPresenter(warnIfUnreachable: false, environment: environment, warn: warn))
        case .auto, .none: break
        }
        let stopBudget = schedulerConfiguration.expirationGrace + schedulerConfiguration.criticalBudget
        if let systemd = SystemdPresenter(environment: environment, stopBudget: stopBudget) { presenters.append(systemd) }
        return presenters
    }

    /// A KDE job view where a job view server owns its name on the session bus, else a freedesktop
    /// notification (which says, per `warnIfUnreachable`, why the bus cannot be used).
    private static func desktopPresenter(warnIfUnreachable: Bool, environment: [String: String],
                                         warn: @escaping @Sendable (String) -> Void) -> any TaskPresenter {
        if let server = KDEJobViewPresenter.server(environment: environment) {
            return KDEJobViewPresenter(server: server, warnIfUnreachable: warnIfUnreachable, environment: environment,
                                       warn: warn)
        }
        return DesktopPresenter(warnIfUnreachable: warnIfUnreachable, environment: environment, warn: warn)
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
