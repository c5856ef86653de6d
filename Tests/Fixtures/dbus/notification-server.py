#!/usr/bin/python3
"""A freedesktop notification server for kiln's tests (Debian's python3-dbus and
python3-gi). It owns org.freedesktop.Notifications on the bus that
DBUS_SESSION_BUS_ADDRESS names and writes every Notify call as one JSON line:
the monotonic time it came, the id it returned, replaces_id, summary, body,
action keys and the `value` hint. With --cancel-at P it invokes the Cancel
action (the signal ActionInvoked(id, "cancel")) once, right after the first
notification with a value of at least P. With --markup it lists body-markup
among its capabilities. With --first-reply-delay S it answers the first Notify S
seconds after it came (a server D-Bus starts for it, a busy shell). It creates --ready once it owns the name.
"""
import argparse
import json
import time

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

INTERFACE = "org.freedesktop.Notifications"


class Server(dbus.service.Object):
    def __init__(self, bus, log, cancel_at, markup, first_reply_delay):
        super().__init__(bus, "/org/freedesktop/Notifications")
        self.log = log
        self.cancel_at = cancel_at
        self.markup = markup
        self.first_reply_delay = first_reply_delay
        self.next_id = 1

    @dbus.service.method(INTERFACE, in_signature="susssasa{sv}i", out_signature="u")
    def Notify(self, app, replaces_id, icon, summary, body, actions, hints, timeout):
        if self.first_reply_delay:
            time.sleep(self.first_reply_delay)
            self.first_reply_delay = None
        nid = int(replaces_id)
        if nid == 0:
            nid = self.next_id
            self.next_id += 1
        value = int(hints["value"]) if "value" in hints else None
        keys = [str(k) for k in actions[0::2]]
        record = {"time": time.monotonic(), "id": nid, "replacesID": int(replaces_id), "app": str(app),
                  "summary": str(summary), "body": str(body), "actions": keys, "value": value,
                  "timeout": int(timeout)}
        self.log.write(json.dumps(record) + "\n")
        self.log.flush()
        if self.cancel_at is not None and value is not None and value >= self.cancel_at and "cancel" in keys:
            self.cancel_at = None
            GLib.idle_add(self.invoke, nid)  # after the reply, as a person's click comes
        return dbus.UInt32(nid)

    def invoke(self, nid):
        self.log.write(json.dumps({"time": time.monotonic(), "invoked": "cancel", "id": nid}) + "\n")
        self.log.flush()
        self.ActionInvoked(dbus.UInt32(nid), "cancel")
        return False

    @dbus.service.signal(INTERFACE, signature="us")
    def ActionInvoked(self, nid, key):
        pass

    @dbus.service.method(INTERFACE, in_signature="", out_signature="as")
    def GetCapabilities(self):
        return ["body", "actions"] + (["body-markup"] if self.markup else [])

    @dbus.service.method(INTERFACE, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return ("kiln-test", "kiln", "1", "1.2")

    @dbus.service.method(INTERFACE, in_signature="u", out_signature="")
    def CloseNotification(self, nid):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--ready", required=True)
    parser.add_argument("--cancel-at", type=int)
    parser.add_argument("--markup", action="store_true")
    parser.add_argument("--first-reply-delay", type=float)
    args = parser.parse_args()
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    with open(args.log, "a") as log:
        server = Server(bus, log, args.cancel_at, args.markup, args.first_reply_delay)
        name = dbus.service.BusName(INTERFACE, bus)
        open(args.ready, "w").close()
        loop = GLib.MainLoop()
        bus.call_on_disconnection(lambda _: loop.quit())
        loop.run()
        del server, name


if __name__ == "__main__":
    main()
