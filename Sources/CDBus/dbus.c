#include "cdbus.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* The part of libdbus-1's ABI used here (dbus/dbus-*.h, stable since 1.0). */
typedef uint32_t dbus_bool_t;
typedef struct DBusConnection DBusConnection;
typedef struct DBusMessage DBusMessage;
typedef struct {
    const char *name;
    const char *message;
    unsigned int dummy1 : 1, dummy2 : 1, dummy3 : 1, dummy4 : 1, dummy5 : 1;
    void *padding1;
} DBusError;
/* DBusMessageIter is 72 bytes on 64-bit Linux; this is room enough, suitably aligned. */
typedef struct { void *room[16]; } DBusMessageIter;

enum { DBUS_BUS_SESSION = 0 };
enum {
    TYPE_INVALID = 0, TYPE_STRING = 's', TYPE_UINT32 = 'u', TYPE_INT32 = 'i', TYPE_UINT64 = 't',
    TYPE_BOOLEAN = 'b', TYPE_OBJECT_PATH = 'o', TYPE_ARRAY = 'a', TYPE_VARIANT = 'v', TYPE_DICT_ENTRY = 'e'
};
enum { MESSAGE_TYPE_SIGNAL = 4 };

static struct {
    void (*error_init)(DBusError *);
    void (*error_free)(DBusError *);
    DBusConnection *(*bus_get_private)(int, DBusError *);
    void (*bus_add_match)(DBusConnection *, const char *, DBusError *);
    void (*set_exit_on_disconnect)(DBusConnection *, dbus_bool_t);
    DBusMessage *(*new_method_call)(const char *, const char *, const char *, const char *);
    void (*iter_init_append)(DBusMessage *, DBusMessageIter *);
    dbus_bool_t (*append_basic)(DBusMessageIter *, int, const void *);
    dbus_bool_t (*open_container)(DBusMessageIter *, int, const char *, DBusMessageIter *);
    dbus_bool_t (*close_container)(DBusMessageIter *, DBusMessageIter *);
    DBusMessage *(*send_with_reply_and_block)(DBusConnection *, DBusMessage *, int, DBusError *);
    dbus_bool_t (*get_args)(DBusMessage *, DBusError *, int, ...);
    void (*message_unref)(DBusMessage *);
    dbus_bool_t (*read_write)(DBusConnection *, int);
    DBusMessage *(*pop_message)(DBusConnection *);
    dbus_bool_t (*is_signal)(DBusMessage *, const char *, const char *);
    int (*message_type)(DBusMessage *);
    const char *(*message_interface)(DBusMessage *);
    const char *(*message_path)(DBusMessage *);
    const char *(*message_member)(DBusMessage *);
    dbus_bool_t (*iter_init)(DBusMessage *, DBusMessageIter *);
    int (*iter_arg_type)(DBusMessageIter *);
    void (*iter_get_basic)(DBusMessageIter *, void *);
    dbus_bool_t (*is_connected)(DBusConnection *);
    void (*connection_close)(DBusConnection *);
    void (*connection_unref)(DBusConnection *);
    void (*free_string_array)(char **);
} dbus;

static pthread_once_t loadOnce = PTHREAD_ONCE_INIT;
static const char *libraryPath;
static char loadError[256];

static void load(void) {
    void *library = dlopen(libraryPath, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(loadError, sizeof loadError, "%s", reason ? reason : "dlopen failed");
        return;
    }
    struct { void **slot; const char *name; } symbols[] = {
        {(void **)&dbus.error_init, "dbus_error_init"},
        {(void **)&dbus.error_free, "dbus_error_free"},
        {(void **)&dbus.bus_get_private, "dbus_bus_get_private"},
        {(void **)&dbus.bus_add_match, "dbus_bus_add_match"},
        {(void **)&dbus.set_exit_on_disconnect, "dbus_connection_set_exit_on_disconnect"},
        {(void **)&dbus.new_method_call, "dbus_message_new_method_call"},
        {(void **)&dbus.iter_init_append, "dbus_message_iter_init_append"},
        {(void **)&dbus.append_basic, "dbus_message_iter_append_basic"},
        {(void **)&dbus.open_container, "dbus_message_iter_open_container"},
        {(void **)&dbus.close_container, "dbus_message_iter_close_container"},
        {(void **)&dbus.send_with_reply_and_block, "dbus_connection_send_with_reply_and_block"},
        {(void **)&dbus.get_args, "dbus_message_get_args"},
        {(void **)&dbus.message_unref, "dbus_message_unref"},
        {(void **)&dbus.read_write, "dbus_connection_read_write"},
        {(void **)&dbus.pop_message, "dbus_connection_pop_message"},
        {(void **)&dbus.is_signal, "dbus_message_is_signal"},
        {(void **)&dbus.message_type, "dbus_message_get_type"},
        {(void **)&dbus.message_interface, "dbus_message_get_interface"},
        {(void **)&dbus.message_path, "dbus_message_get_path"},
        {(void **)&dbus.message_member, "dbus_message_get_member"},
        {(void **)&dbus.iter_init, "dbus_message_iter_init"},
        {(void **)&dbus.iter_arg_type, "dbus_message_iter_get_arg_type"},
        {(void **)&dbus.iter_get_basic, "dbus_message_iter_get_basic"},
        {(void **)&dbus.is_connected, "dbus_connection_get_is_connected"},
        {(void **)&dbus.connection_close, "dbus_connection_close"},
        {(void **)&dbus.connection_unref, "dbus_connection_unref"},
        {(void **)&dbus.free_string_array, "dbus_free_string_array"},
    };
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        *symbols[i].slot = dlsym(library, symbols[i].name);
        if (*symbols[i].slot == NULL) {
            snprintf(loadError, sizeof loadError, "%s has no %s", libraryPath, symbols[i].name);
            dbus.error_init = NULL;  /* marks the library unusable */
            return;
        }
    }
}

static void copyError(DBusError *e, const char *fallback, char *error, size_t capacity) {
    snprintf(error, capacity, "%s", e->message ? e->message : fallback);
    dbus.error_free(e);
}

/* Sends `call` (released here) and returns the reply, or NULL with libdbus's message (else `fallback`) in `error`. */
static DBusMessage *roundTrip(DBusConnection *connection, DBusMessage *call, int replyTimeoutMs, const char *fallback,
                              char *error, size_t errorCapacity) {
    DBusError e;
    dbus.error_init(&e);
    DBusMessage *reply = dbus.send_with_reply_and_block(connection, call, replyTimeoutMs, &e);
    dbus.message_unref(call);
    if (reply == NULL) copyError(&e, fallback, error, errorCapacity);
    return reply;
}

static const char *const interface = "org.freedesktop.Notifications";

void *kiln_dbus_connect(const char *library, char *error, size_t errorCapacity) {
    /* Read by load() under pthread_once; only the first call's path is used. */
    if (libraryPath == NULL) libraryPath = strdup(library);
    pthread_once(&loadOnce, load);
    if (dbus.error_init == NULL) {
        snprintf(error, errorCapacity, "%s", loadError);
        return NULL;
    }
    DBusError e;
    dbus.error_init(&e);
    DBusConnection *connection = dbus.bus_get_private(DBUS_BUS_SESSION, &e);
    if (connection == NULL) {
        copyError(&e, "cannot connect to the session bus", error, errorCapacity);
        return NULL;
    }
    dbus.set_exit_on_disconnect(connection, 0);
    if (kiln_dbus_add_match(connection, "type='signal',interface='org.freedesktop.Notifications',member='ActionInvoked'",
                            error, errorCapacity) != 0) {
        kiln_dbus_close(connection);
        return NULL;
    }
    return connection;
}

int kiln_dbus_add_match(void *connection, const char *rule, char *error, size_t errorCapacity) {
    DBusError e;
    dbus.error_init(&e);
    dbus.bus_add_match(connection, rule, &e);
    if (e.name != NULL) {
        copyError(&e, "the bus refused the match rule", error, errorCapacity);
        return -1;
    }
    return 0;
}


int kiln_dbus_name_has_owner(void *connection, const char *name, int replyTimeoutMs, char *error, size_t errorCapacity) {
    DBusMessage *call = dbus.new_method_call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                             "NameHasOwner");
    DBusMessageIter args;
    if (call != NULL) dbus.iter_init_append(call, &args);
    if (call == NULL || !dbus.append_basic(&args, TYPE_STRING, &name)) {
        if (call != NULL) dbus.message_unref(call);
        snprintf(error, errorCapacity, "out of memory");
        return -1;
    }
    DBusMessage *reply = roundTrip(connection, call, replyTimeoutMs, "no reply from the bus", error, errorCapacity);
    if (reply == NULL) return -1;
    DBusError e;
    dbus.error_init(&e);
    dbus_bool_t owned = 0;
    dbus_bool_t read = dbus.get_args(reply, &e, TYPE_BOOLEAN, &owned, TYPE_INVALID);
    dbus.message_unref(reply);
    if (!read) {
        copyError(&e, "the bus's NameHasOwner reply has no boolean", error, errorCapacity);
        return -1;
    }
    return owned ? 1 : 0;
}

int kiln_dbus_notifications_capability(void *connection, const char *capability, int replyTimeoutMs, char *error,
                                       size_t errorCapacity) {
    DBusMessage *call = dbus.new_method_call(interface, "/org/freedesktop/Notifications", interface, "GetCapabilities");
    if (call == NULL) {
        snprintf(error, errorCapacity, "out of memory");
        return -1;
    }
    DBusMessage *reply = roundTrip(connection, call, replyTimeoutMs, "no reply from the notification server", error,
                                   errorCapacity);
    if (reply == NULL) return -1;
    DBusError e;
    dbus.error_init(&e);
    char **names = NULL;
    int count = 0;
    dbus_bool_t read = dbus.get_args(reply, &e, TYPE_ARRAY, TYPE_STRING, &names, &count, TYPE_INVALID);
    dbus.message_unref(reply);
    if (!read) {
        copyError(&e, "the GetCapabilities reply is no list of names", error, errorCapacity);
        return -1;
    }
    int found = 0;
    for (int i = 0; i < count; i++) found |= strcmp(names[i], capability) == 0;
    dbus.free_string_array(names);
    return found;
}

int kiln_dbus_call(void *connection, const char *destination, const char *path, const char *interface,
                   const char *method, const kiln_dbus_arg *args, size_t count, int replyTimeoutMs,
                   char *reply, size_t replyCapacity, char *error, size_t errorCapacity) {
    DBusMessage *call = dbus.new_method_call(destination, path, interface, method);
    if (call == NULL) {
        snprintf(error, errorCapacity, "out of memory");
        return -1;
    }
    DBusMessageIter iter;
    dbus.iter_init_append(call, &iter);
    dbus_bool_t ok = 1;
    for (size_t i = 0; ok && i < count; i++) {
        int32_t i32 = (int32_t)args[i].number;
        uint32_t u32 = (uint32_t)args[i].number;
        dbus_bool_t b = args[i].number != 0;
        switch (args[i].type) {
        case TYPE_STRING: ok = dbus.append_basic(&iter, TYPE_STRING, &args[i].string); break;
        case TYPE_BOOLEAN: ok = dbus.append_basic(&iter, TYPE_BOOLEAN, &b); break;
        case TYPE_INT32: ok = dbus.append_basic(&iter, TYPE_INT32, &i32); break;
        case TYPE_UINT32: ok = dbus.append_basic(&iter, TYPE_UINT32, &u32); break;
        case TYPE_UINT64: ok = dbus.append_basic(&iter, TYPE_UINT64, &args[i].number); break;
        default: ok = 0; break;
        }
    }
    if (!ok) {
        dbus.message_unref(call);
        snprintf(error, errorCapacity, "cannot build the call %s.%s", interface, method);
        return -1;
    }
    DBusMessage *answer = roundTrip(connection, call, replyTimeoutMs, "no reply", error, errorCapacity);
    if (answer == NULL) return -1;
    if (reply != NULL) {
        DBusMessageIter read;
        const char *value = NULL;
        if (dbus.iter_init(answer, &read)
            && (dbus.iter_arg_type(&read) == TYPE_OBJECT_PATH || dbus.iter_arg_type(&read) == TYPE_STRING)) {
            dbus.iter_get_basic(&read, &value);
        }
        if (value == NULL) {
            dbus.message_unref(answer);
            snprintf(error, errorCapacity, "the reply to %s.%s has no path or string", interface, method);
            return -1;
        }
        snprintf(reply, replyCapacity, "%s", value);
    }
    dbus.message_unref(answer);
    return 0;
}

int kiln_dbus_next_signal(void *connection, int timeoutMs, const char *interface, const char *path,
                          char *member, size_t memberCapacity) {
    if (!dbus.read_write(connection, timeoutMs) || !dbus.is_connected(connection)) return -1;
    DBusMessage *message;
    while ((message = dbus.pop_message(connection)) != NULL) {
        const char *from = dbus.message_path(message), *of = dbus.message_interface(message);
        const char *name = dbus.message_member(message);
        int found = dbus.message_type(message) == MESSAGE_TYPE_SIGNAL && from && of && name
            && strcmp(from, path) == 0 && strcmp(of, interface) == 0;
        if (found) snprintf(member, memberCapacity, "%s", name);
        dbus.message_unref(message);
        if (found) return 1;
    }
    return dbus.is_connected(connection) ? 0 : -1;
}

int kiln_dbus_notify(void *connection, uint32_t replacesID, const char *appName, const char *summary,
                     const char *body, int32_t value, int cancelAction, int32_t expireTimeout,
                     int replyTimeoutMs, uint32_t *id, char *error, size_t errorCapacity) {
    DBusMessage *call = dbus.new_method_call(interface, "/org/freedesktop/Notifications", interface, "Notify");
    if (call == NULL) {
        snprintf(error, errorCapacity, "out of memory");
        return -1;
    }
    const char *icon = "";
    const char *cancelKey = "cancel", *cancelLabel = "Cancel", *valueKey = "value";
    DBusMessageIter args, actions, hints, entry, variant;
    dbus.iter_init_append(call, &args);
    dbus_bool_t ok = dbus.append_basic(&args, TYPE_STRING, &appName)
        && dbus.append_basic(&args, TYPE_UINT32, &replacesID)
        && dbus.append_basic(&args, TYPE_STRING, &icon)
        && dbus.append_basic(&args, TYPE_STRING, &summary)
        && dbus.append_basic(&args, TYPE_STRING, &body)
        && dbus.open_container(&args, TYPE_ARRAY, "s", &actions);
    if (ok && cancelAction) {
        ok = dbus.append_basic(&actions, TYPE_STRING, &cancelKey) && dbus.append_basic(&actions, TYPE_STRING, &cancelLabel);
    }
    ok = ok && dbus.close_container(&args, &actions) && dbus.open_container(&args, TYPE_ARRAY, "{sv}", &hints);
    if (ok && value >= 0) {
        ok = dbus.open_container(&hints, TYPE_DICT_ENTRY, NULL, &entry)
            && dbus.append_basic(&entry, TYPE_STRING, &valueKey)
            && dbus.open_container(&entry, TYPE_VARIANT, "i", &variant)
            && dbus.append_basic(&variant, TYPE_INT32, &value)
            && dbus.close_container(&entry, &variant)
            && dbus.close_container(&hints, &entry);
    }
    ok = ok && dbus.close_container(&args, &hints) && dbus.append_basic(&args, TYPE_INT32, &expireTimeout);
    if (!ok) {
        dbus.message_unref(call);
        snprintf(error, errorCapacity, "out of memory");
        return -1;
    }
    DBusMessage *reply = roundTrip(connection, call, replyTimeoutMs, "no reply from the notification server",
                                   error, errorCapacity);
    if (reply == NULL) return -1;
    DBusError e;
    dbus.error_init(&e);
    dbus_bool_t read = dbus.get_args(reply, &e, TYPE_UINT32, id, TYPE_INVALID);
    dbus.message_unref(reply);
    if (!read) {
        copyError(&e, "the notification server's reply has no id", error, errorCapacity);
        return -1;
    }
    return 0;
}

int kiln_dbus_next_action(void *connection, int timeoutMs, uint32_t *id, char *key, size_t keyCapacity) {
    if (!dbus.read_write(connection, timeoutMs) || !dbus.is_connected(connection)) return -1;
    DBusMessage *message;
    while ((message = dbus.pop_message(connection)) != NULL) {
        int found = 0;
        if (dbus.is_signal(message, interface, "ActionInvoked")) {
            DBusError e;
            dbus.error_init(&e);
            const char *action = NULL;
            if (dbus.get_args(message, &e, TYPE_UINT32, id, TYPE_STRING, &action, TYPE_INVALID)) {
                snprintf(key, keyCapacity, "%s", action);
                found = 1;
            } else {
                dbus.error_free(&e);
            }
        }
        dbus.message_unref(message);
        if (found) return 1;
    }
    return dbus.is_connected(connection) ? 0 : -1;
}

void kiln_dbus_close(void *connection) {
    dbus.connection_close(connection);
    dbus.connection_unref(connection);
}
