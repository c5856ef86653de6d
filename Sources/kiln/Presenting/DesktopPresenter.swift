import ContinuedProcessing
import Export

/// The job as one freedesktop notification (`org.freedesktop.Notifications` on the
/// session bus), replaced in place at most once a second: the title, then the
/// subtitle, the counts and the time left, with the `value` hint (0–100, never
/// decreasing) and a Cancel action; at the end, a last notification with the
/// counts and how the job ended.
///
/// A thread of its own (``BusPresenterThread``) owns the bus connection: it connects,
/// listens for the Cancel action, and sends what ``present(_:)`` noted. When the bus or
/// the server cannot be used, or goes away mid-job, the job goes on exactly as without it.
final class DesktopPresenter: TaskPresenter {
    private let thread: BusPresenterThread
    /// The shortest time between two notifications of progress.
    static let interval = Duration.seconds(1)

    /// Starts the thread. `warnIfUnreachable`: a bus or server that cannot be reached at the start is
    /// worth a warning (`--notify desktop`); with `auto` it is not, and nothing is shown.
    /// `environment` names the library (``DBusSession/init(environment:)``).
    /// `earlier`: the notification a run before in the folder showed, which the first one replaces where the same
    /// server showed it (a killed run's stayed on the screen, at its last percent, its Cancel doing nothing);
    /// `shown` hears of the notification this run shows, for the run after it.
    init(warnIfUnreachable: Bool, environment: [String: String], replacing earlier: ShownNotification? = nil,
         shown: @escaping @Sendable (ShownNotification) -> Void = { _ in }, warn: @escaping @Sendable (String) -> Void) {
        thread = BusPresenterThread(view: "desktop notifications", warnIfUnreachable: warnIfUnreachable,
                                    environment: environment, warn: warn) { session, thread throws(BusPresenterThread.Failure) in
            try Self.run(session, thread, replacing: earlier, shown: shown)
        }
    }

    func attach(_ actions: TaskActions) { thread.attach(actions) }

    func present(_ presentation: TaskPresentation) { thread.present(presentation) }

    /// Shows the presentations until the final one; throws when the bus or the server fails.
    private static func run(_ session: borrowing DBusSession, _ thread: BusPresenterThread, replacing earlier: ShownNotification?,
                            shown noteShown: @Sendable (ShownNotification) -> Void) throws(BusPresenterThread.Failure) {
        // Where this run's notification is: the bus and the server now on it (none before D-Bus starts one for the
        // first notification: then nothing of a run before is on the screen to replace; asked again after it).
        var place = session.notificationServer()
        var id: UInt32 = earlier.flatMap { earlier in place.map { $0 == (earlier.bus, earlier.server) } == true ? earlier.id : nil } ?? 0
        var showed = false
        var shown: DesktopText?
        var shownAt: ContinuousClock.Instant?
        var value: Int32 = 0
        do throws(DBusSession.Failure) {
            // A server that reads markup in the body (GNOME Shell, Plasma, dunst, mako) is sent it escaped; one that
            // does not, as it is (the specification: markup shows through there as text). One that does not answer
            // the question is taken not to read it.
            let markup = (try? session.notificationsCapability("body-markup")) == true
            let body = { (text: String) in markup ? DesktopText.escapingMarkup(text) : text }
            while true {
                while let action = try session.nextAction(waiting: 100) {
                    if id != 0, action.id == id, action.key == "cancel" { thread.actions?.cancel() }
                }
                guard let latest = thread.latest else { continue }
                value = DesktopText.percent(latest, atLeast: value)
                let text = DesktopText(latest, percent: value)
                let ended = latest.hasEnded
                if ended {
                    // A job stopped before its last image shows no bar: its percent counted the images in flight, which
                    // the stop drops ("18 %" beside "0 written", where `kiln status` said 0 %); its counts say what is done.
                    let whole = latest.completedUnits >= latest.totalUnits
                    id = try session.notify(replacing: id, summary: text.summary, body: body(text.detail),
                                            value: whole ? value : nil, cancelAction: false, expireTimeout: -1)
                } else {
                    guard text != shown, shownAt.map({ ContinuousClock.now - $0 >= Self.interval }) ?? true else { continue }
                    id = try session.notify(replacing: id, summary: text.summary, body: body(text.subtitle + "\n" + text.detail),
                                            value: value, cancelAction: true, expireTimeout: 0)
                }
                // The first notification's place and id, for the run after this one (its id stays: replaced in place).
                if !showed {
                    if place == nil { place = session.notificationServer() }
                    if let place { noteShown(ShownNotification(bus: place.bus, server: place.server, id: id)) }
                }
                showed = true
                thread.noteShown()
                if ended { return }
                shown = text
                shownAt = .now
            }
        } catch {
            throw BusPresenterThread.Failure(cause: error, shown: showed)
        }
    }
}
