import ContinuedProcessing
import Export
import Foundation

extension RunSettings {
    /// The views outside the terminal that show this job: per `--notify`, a KDE job view where a job view
    /// server is on the session bus, else a desktop notification (replacing `earlier`, the one a run before in the
    /// folder showed, where it is on the same server; `shown` hears of the one it shows); and systemd's status under
    /// `NOTIFY_SOCKET`. `warn` tells the user of a view that stopped working.
    func makePresenters(environment: [String: String] = ProcessInfo.processInfo.environment,
                        replacing earlier: ShownNotification? = nil,
                        shown: @escaping @Sendable (ShownNotification) -> Void = { _ in },
                        warn: @escaping @Sendable (String) -> Void) -> [any TaskPresenter] {
        var presenters: [any TaskPresenter] = []
        let desktop = { (warnIfUnreachable: Bool) in
            Self.desktopPresenter(warnIfUnreachable: warnIfUnreachable, environment: environment, replacing: earlier,
                                  shown: shown, warn: warn)
        }
        switch notify {
        case .desktop: presenters.append(desktop(true))
        case .auto where Self.hasSessionBus(environment) && !showsBar: presenters.append(desktop(false))
        case .auto, .none: break
        }
        let stopBudget = schedulerConfiguration.expirationGrace + schedulerConfiguration.criticalBudget
        if let systemd = SystemdPresenter(environment: environment, stopBudget: stopBudget) { presenters.append(systemd) }
        return presenters
    }

    /// A KDE job view where a job view server owns its name on the session bus, else a freedesktop
    /// notification (which says, per `warnIfUnreachable`, why the bus cannot be used).
    private static func desktopPresenter(warnIfUnreachable: Bool, environment: [String: String],
                                         replacing earlier: ShownNotification?,
                                         shown: @escaping @Sendable (ShownNotification) -> Void,
                                         warn: @escaping @Sendable (String) -> Void) -> any TaskPresenter {
        if let server = KDEJobViewPresenter.server(environment: environment) {
            return KDEJobViewPresenter(server: server, warnIfUnreachable: warnIfUnreachable, environment: environment,
                                       warn: warn)
        }
        return DesktopPresenter(warnIfUnreachable: warnIfUnreachable, environment: environment, replacing: earlier,
                                shown: shown, warn: warn)
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
