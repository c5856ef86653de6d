/*
 * Desktop notifications over the session bus without linking libdbus.
 *
 * libdbus-1 is opened with dlopen on first use (kiln_dbus_connect), like the
 * Vulkan loader in CVulkan: `kiln` starts and behaves the same on a machine with
 * no bus, no notification daemon or no libdbus. Only the few libdbus entry
 * points the notifications need are declared, in dbus.c; nothing of libdbus
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

/* Reads what the bus sent, waiting up to `timeoutMs` for it. Returns 1 when an
 * ActionInvoked signal came (its notification id in *id, its action key in
 * `key`), 0 when none did, -1 when the connection is gone. */
int kiln_dbus_next_action(void *connection, int timeoutMs, uint32_t *id, char *key, size_t keyCapacity);

/* Closes and releases the connection. */
void kiln_dbus_close(void *connection);

#endif
