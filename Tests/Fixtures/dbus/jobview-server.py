#!/usr/bin/python3
"""A fake KDE job view server for kiln's tests (Debian's python3-dbus and
python3-gi), with the interfaces of KDE's kjobwidgets (org.kde.JobViewServer,
org.kde.JobViewV2). It owns --name (org.kde.JobViewServer by default) on the bus
that DBUS_SESSION_BUS_ADDRESS names; requestView returns a new view object,
/JobViewServer/JobView_N. Every call, on the server and on the views, is written
as one JSON line: the monotonic time it came, the view, the method and its
arguments. It emits the view's signals as Plasma's buttons do:
  --cancel-at P   cancelRequested, once, after the first setPercent of at least P;
  --suspend-at P  suspendRequested, once, after the first setPercent of at least P;
  --resume-when F resumeRequested, once, when the file F exists after the suspend.
Each emitted signal is written too, as {"time", "view", "emitted"}. It creates
--ready once it owns the name.
"""
import argparse
import json
import os
import time

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

SERVER = "org.kde.JobViewServer"
VIEW = "org.kde.JobViewV2"


def plain(value):
    """A D-Bus value as JSON can write it."""
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (dbus.String, dbus.ObjectPath)):
        return str(value)
    if isinstance(value, (int, float)):
        return int(value) if isinstance(value, int) else float(value)
    return str(value)


class Recorder:
    def __init__(self, log, options):
        self.log = log
        self.options = options
        self.cancel_at = options.cancel_at
        self.suspend_at = options.suspend_at

    def write(self, record):
        record["time"] = time.monotonic()
        self.log.write(json.dumps(record) + "\n")
        self.log.flush()


class View(dbus.service.Object):
    def __init__(self, bus, path, recorder):
        super().__init__(bus, path)
        self.path = path
        self.recorder = recorder

    def record(self, method, *args):
        self.recorder.write({"view": self.path, "method": method, "args": [plain(a) for a in args]})

    @dbus.service.method(VIEW, in_signature="s")
    def terminate(self, message):
        self.record("terminate", message)

    @dbus.service.method(VIEW, in_signature="b")
    def setSuspended(self, suspended):
        self.record("setSuspended", suspended)

    @dbus.service.method(VIEW, in_signature="ts")
    def setTotalAmount(self, amount, unit):
        self.record("setTotalAmount", amount, unit)

    @dbus.service.method(VIEW, in_signature="ts")
    def setProcessedAmount(self, amount, unit):
        self.record("setProcessedAmount", amount, unit)

    @dbus.service.method(VIEW, in_signature="u")
    def setPercent(self, percent):
        self.record("setPercent", percent)
        r = self.recorder
        if r.cancel_at is not None and percent >= r.cancel_at:
            r.cancel_at = None
            GLib.idle_add(self.emit, "cancelRequested")  # after the reply, as a person's click comes
        if r.suspend_at is not None and percent >= r.suspend_at:
            r.suspend_at = None
            GLib.idle_add(self.emit, "suspendRequested")
            if r.options.resume_when:
                GLib.timeout_add(50, self.resume_when_file)

    @dbus.service.method(VIEW, in_signature="t")
    def setSpeed(self, speed):
        self.record("setSpeed", speed)

    @dbus.service.method(VIEW, in_signature="s")
    def setInfoMessage(self, message):
        self.record("setInfoMessage", message)

    @dbus.service.method(VIEW, in_signature="uss", out_signature="b")
    def setDescriptionField(self, number, name, value):
        self.record("setDescriptionField", number, name, value)
        return True

    @dbus.service.method(VIEW, in_signature="u")
    def clearDescriptionField(self, number):
        self.record("clearDescriptionField", number)

    @dbus.service.method(VIEW, in_signature="v")
    def setDestUrl(self, url):
        self.record("setDestUrl", url)

    @dbus.service.method(VIEW, in_signature="u")
    def setError(self, code):
        self.record("setError", code)

    @dbus.service.signal(VIEW)
    def cancelRequested(self):
        pass

    @dbus.service.signal(VIEW)
    def suspendRequested(self):
        pass

    @dbus.service.signal(VIEW)
    def resumeRequested(self):
        pass

    def emit(self, name):
        self.recorder.write({"view": self.path, "emitted": name})
        getattr(self, name)()
        return False

    def resume_when_file(self):
        if not os.path.exists(self.recorder.options.resume_when):
            return True
        self.emit("resumeRequested")
        return False


class Server(dbus.service.Object):
    def __init__(self, bus, recorder):
        super().__init__(bus, "/JobViewServer")
        self.bus = bus
        self.recorder = recorder
        self.views = []

    @dbus.service.method(SERVER, in_signature="ssi", out_signature="o")
    def requestView(self, app, icon, capabilities):
        path = "/JobViewServer/JobView_%d" % (len(self.views) + 1)
        self.views.append(View(self.bus, path, self.recorder))
        self.recorder.write({"view": path, "method": "requestView", "args": [str(app), str(icon), int(capabilities)]})
        return dbus.ObjectPath(path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--ready", required=True)
    parser.add_argument("--name", default=SERVER)
    parser.add_argument("--cancel-at", type=int)
    parser.add_argument("--suspend-at", type=int)
    parser.add_argument("--resume-when")
    args = parser.parse_args()
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    with open(args.log, "a") as log:
        server = Server(bus, Recorder(log, args))
        name = dbus.service.BusName(args.name, bus)
        open(args.ready, "w").close()
        loop = GLib.MainLoop()
        bus.call_on_disconnection(lambda _: loop.quit())
        loop.run()
        del server, name


if __name__ == "__main__":
    main()
