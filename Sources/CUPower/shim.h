#ifndef NOISECLOCK_CUPOWER_SHIM_H
#define NOISECLOCK_CUPOWER_SHIM_H
#include <upower.h>
#include <gio/gio.h>

/* GObject properties have no C getters, and g_object_get is variadic: one helper per property. */

static inline double nc_up_device_percentage(UpDevice *device) {
    gdouble value = 0;
    g_object_get(device, "percentage", &value, NULL);
    return value;
}

static inline guint nc_up_device_state(UpDevice *device) {
    guint value = 0;
    g_object_get(device, "state", &value, NULL);
    return value;
}

static inline gint64 nc_up_device_time_to_empty(UpDevice *device) {
    gint64 value = 0;
    g_object_get(device, "time-to-empty", &value, NULL);
    return value;
}

static inline gint64 nc_up_device_time_to_full(UpDevice *device) {
    gint64 value = 0;
    g_object_get(device, "time-to-full", &value, NULL);
    return value;
}

static inline gboolean nc_up_device_is_present(UpDevice *device) {
    gboolean value = FALSE;
    g_object_get(device, "is-present", &value, NULL);
    return value;
}

static inline guint nc_up_device_kind(UpDevice *device) {
    guint value = 0;
    g_object_get(device, "kind", &value, NULL);
    return value;
}

/* g_signal_connect is a macro taking a GCallback; this takes the "notify" signature as it is. */
typedef void (*nc_notify_callback)(gpointer instance, GParamSpec *pspec, gpointer user_data);

static inline gulong nc_signal_connect_notify(gpointer instance, nc_notify_callback callback, gpointer user_data) {
    return g_signal_connect(instance, "notify", G_CALLBACK(callback), user_data);
}

/* Runs `callback` once from `context`'s loop after `milliseconds` (a change of the battery arrives
   as one `notify` per property, sometimes in separate D-Bus signals: this coalesces them). */
typedef gboolean (*nc_source_callback)(gpointer user_data);

static inline void nc_run_once_after(GMainContext *context, guint milliseconds, nc_source_callback callback, gpointer user_data) {
    GSource *source = g_timeout_source_new(milliseconds);
    g_source_set_callback(source, callback, user_data, NULL);
    g_source_attach(source, context);
    g_source_unref(source);
}

static inline void nc_object_unref(gpointer object) {
    if (object) g_object_unref(object);
}
#endif
