import ContinuedProcessing
import Glibc

/// The job as a KDE job view: the progress Plasma shows in its notification area, with Cancel and
/// Suspend/Resume buttons (`org.kde.JobViewServer.requestView`, then the `org.kde.JobViewV2` object it returns).
///
/// The view is requested Killable, and Suspendable when the task can be paused. It shows the title
/// (`setInfoMessage`), the subtitle and the same line of detail as the freedesktop notification
/// (description fields "Export" and "Progress"), the images done of the total (`setProcessedAmount`,
/// `setTotalAmount`, unit "files") and the percent (`setPercent`, never decreasing), at most once a second
/// while something changes; at the end at once, then `terminate`, with the summary line as the error
/// message unless the job succeeded. The view's `cancelRequested` cancels the task as Ctrl-C does;
/// `suspendRequested` and `resumeRequested` pause it and let it go on (``TaskActions/setPaused(_:)``),
/// and the view is told (`setSuspended`; "Progress" then says "paused").
///
/// A thread of its own (``BusPresenterThread``) owns the bus connection. When the bus or the server
/// cannot be used, or goes away mid-job, the job goes on exactly as without it.
final class KDEJobViewPresenter: TaskPresenter {
    private let thread: BusPresenterThread
    /// The shortest time between two updates of progress.
    static let interval = Duration.seconds(1)
    /// The names a job view server owns on the session bus: Plasma's, then the older kuiserver's.
    static let serverNames = ["org.kde.JobViewServer", "org.kde.kuiserver"]
    private static let serverPath = "/JobViewServer"
    private static let serverInterface = "org.kde.JobViewServer"
    private static let viewInterface = "org.kde.JobViewV2"
    /// `requestView`'s capabilities (KJob's): the view offers Cancel, and Suspend/Resume.
    private static let killable: Int32 = 0x1, suspendable: Int32 = 0x2

    /// The job view server on the session bus `environment` names: the first of ``serverNames`` that
    /// has an owner; nil when none has, or the bus or libdbus cannot be used (the caller falls back).
    static func server(environment: [String: String]) -> String? {
        guard let session = try? DBusSession(environment: environment) else { return nil }
        for name in serverNames where (try? session.nameHasOwner(name)) == true { return name }
        return nil
    }

    /// Starts the thread, which requests a view from `server` (a name in ``serverNames``) once the first
    /// presentation comes. `warnIfUnreachable` and `environment` as for ``DesktopPresenter``.
    init(server: String, warnIfUnreachable: Bool, environment: [String: String],
         warn: @escaping @Sendable (String) -> Void) {
        thread = BusPresenterThread(view: "KDE job view", warnIfUnreachable: warnIfUnreachable,
                                    environment: environment, warn: warn) { session, thread throws(BusPresenterThread.Failure) in
            try Self.run(session, thread, server: server)
        }
    }

    func attach(_ actions: TaskActions) { thread.attach(actions) }

    func present(_ presentation: TaskPresentation) { thread.present(presentation) }

    /// Requests the view, then shows the presentations until the final one and answers the view's
    /// requests; throws when the bus or the server fails.
    private static func run(_ session: borrowing DBusSession, _ thread: BusPresenterThread, server: String)
        throws(BusPresenterThread.Failure) {
        var view: String?
        do throws(DBusSession.Failure) {
            // The first presentation comes after the actions: what they allow decides the capabilities.
            var first = thread.latest
            while first == nil {
                usleep(20_000)
                first = thread.latest
            }
            let actions = thread.actions
            let capabilities = killable | (actions?.canPause == true ? suspendable : 0)
            let path = try session.call(server, path: serverPath, interface: serverInterface, method: "requestView",
                                        [.string("kiln"), .string("image-x-generic"), .int32(capabilities)],
                                        returnsPath: true) ?? ""
            view = path
            thread.noteShown()
            try session.addMatch("type='signal',interface='\(viewInterface)',path='\(path)'")
            func call(_ method: String, _ arguments: [DBusSession.Argument]) throws(DBusSession.Failure) {
                try session.call(server, path: path, interface: viewInterface, method: method, arguments)
            }
            var shown: Shown?
            var shownAt: ContinuousClock.Instant?
            var percent: Int32 = 0
            var suspended = false
            while true {
                while let request = try session.nextSignal(of: viewInterface, from: path, waiting: 100) {
                    switch request {
                    case "cancelRequested":
                        actions?.cancel()
                    case "suspendRequested" where actions?.canPause == true && !suspended,
                         "resumeRequested" where suspended:
                        suspended.toggle()
                        actions?.setPaused(suspended)
                        try call("setSuspended", [.bool(suspended)])
                    default:
                        break
                    }
                }
                guard let latest = thread.latest else { continue }
                percent = DesktopText.percent(latest, atLeast: percent)
                let now = Shown(text: DesktopText(latest, percent: percent, paused: suspended), processed: latest.completedUnits,
                                total: latest.totalUnits)
                if !latest.hasEnded {
                    guard now != shown, shownAt.map({ ContinuousClock.now - $0 >= Self.interval }) ?? true else { continue }
                }
                // Only what changed, and the percent with every update.
                if now.total != shown?.total { try call("setTotalAmount", [.uint64(UInt64(now.total)), .string("files")]) }
                if now.text.summary != shown?.text.summary { try call("setInfoMessage", [.string(now.text.summary)]) }
                if now.text.subtitle != shown?.text.subtitle {
                    try call("setDescriptionField", [.uint32(0), .string("Export"), .string(now.text.subtitle)])
                }
                if now.text.detail != shown?.text.detail {
                    try call("setDescriptionField", [.uint32(1), .string("Progress"), .string(now.text.detail)])
                }
                if now.processed != shown?.processed {
                    try call("setProcessedAmount", [.uint64(UInt64(now.processed)), .string("files")])
                }
                try call("setPercent", [.uint32(UInt32(percent))])
                shown = now
                shownAt = .now
                if case .ended(let success) = latest.state {
                    try call("terminate", [.string(success ? "" : now.text.detail)])
                    return
                }
            }
        } catch {
            throw BusPresenterThread.Failure(cause: error, shown: view != nil)
        }
    }

    /// What the view was last told.
    private struct Shown: Equatable {
        var text: DesktopText
        var processed: Int
        var total: Int
    }
}
