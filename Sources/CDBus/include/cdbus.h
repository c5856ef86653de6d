/*
 * Desktop notifications over the session bus without linking libdbus.
 *
 * libdbus-1 is opened with dlopen on first use (kiln_dbus_connect), like the
 * Vulkan loader in CVulkan: `kiln` starts and behaves the same on a machine with
 * no bus, no notification daemon or no libdbus. Only the few libdbus entry
 * points kiln needs are declared, in dbus.c; nothing of libdbus
 * shows through this header.
 */
#ifndef KILN_CDBUS_H
#define KILN_CDBUS_H

#include <stddef.h>
#include <stdint.h>

/* A private connection to the session bus; NULL with a message in `error` when
 * libdbus cannot be opened or the bus cannot be reached. `library` is the file
 * to dlopen (libdbus-1.so.3); the first call's is the one loaded, once per
 * process. The connection never exits the process when the bus goes away
 * (libdbus's default does). */
void *kiln_dbus_connect(const char *library, char *error, size_t errorCapacity);

/* org.freedesktop.Notifications.Notify: replaces notification `replacesID`
 * (0: a new one), with the `value` hint (0-100) unless it is negative and a
 * "cancel" action labelled Cancel when `cancelAction` is non-zero; `expireTimeout`
 * as the spec says (0 never, -1 the server's default). Waits up to `replyTimeoutMs`.
 * Returns 0 and the notification's id in *id, else -1 with a message in `error`. */
int kiln_dbus_notify(void *connection, uint32_t replacesID, const char *appName, const char *summary,
                     const char *body, int32_t value, int cancelAction, int32_t expireTimeout,
                     int replyTimeoutMs, uint32_t *id, char *error, size_t errorCapacity);

/* Whether the notification server lists `capability` (org.freedesktop.Notifications.GetCapabilities:
 * "body-markup", …), waiting up to `replyTimeoutMs`: 1 or 0, else -1 with a message in `error`. */
int kiln_dbus_notifications_capability(void *connection, const char *capability, int replyTimeoutMs, char *error,
                                       size_t errorCapacity);

/* Reads what the bus sent, waiting up to `timeoutMs` for it. Returns 1 when an
 * ActionInvoked signal came (its notification id in *id, its action key in
 * `key`), 0 when none did, -1 when the connection is gone. */
int kiln_dbus_next_action(void *connection, int timeoutMs, uint32_t *id, char *key, size_t keyCapacity);

/* Whether `name` has an owner on the bus (org.freedesktop.DBus.NameHasOwner),
 * waiting up to `replyTimeoutMs`: 1 or 0, else -1 with a message in `error`. */
int kiln_dbus_name_has_owner(void *connection, const char *name, int replyTimeoutMs, char *error, size_t errorCapacity);

/* Asks the bus to deliver the signals `rule` matches (a D-Bus match rule).
 * Returns 0, else -1 with a message in `error`. */
int kiln_dbus_add_match(void *connection, const char *rule, char *error, size_t errorCapacity);

/* One argument of a method call: `type` is 's' (string), 'b' (boolean), 'i'
 * (int32), 'u' (uint32) or 't' (uint64); `string` holds an 's', `number` the others. */
typedef struct {
    char type;
    const char *string;
    uint64_t number;
} kiln_dbus_arg;

/* Calls `interface`.`method` on `path` of `destination` with `args`, waiting
 * up to `replyTimeoutMs` for the reply. When `reply` is not NULL, the reply's
 * first argument, an object path or a string, is copied there. Returns 0, else
 * -1 with a message in `error` (an error reply, a timeout, a closed connection). */
int kiln_dbus_call(void *connection, const char *destination, const char *path, const char *interface,
                   const char *method, const kiln_dbus_arg *args, size_t count, int replyTimeoutMs,
                   char *reply, size_t replyCapacity, char *error, size_t errorCapacity);

/* Reads what the bus sent, waiting up to `timeoutMs` for it. Returns 1 when a
 * signal of `interface` from the object `path` came (its name in `member`), 0
 * when none did, -1 when the connection is gone. Other messages are dropped. */
int kiln_dbus_next_signal(void *connection, int timeoutMs, const char *interface, const char *path,
                          char *member, size_t memberCapacity);

/* Closes and releases the connection. */
void kiln_dbus_close(void *connection);

#endif
