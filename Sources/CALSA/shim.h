#ifndef NOISECLOCK_CALSA_SHIM_H
#define NOISECLOCK_CALSA_SHIM_H
#include <alsa/asoundlib.h>

/* Silences ALSA's own error printing to stderr: the node reports device errors itself. */
static void nc_alsa_quiet_handler(const char *file, int line, const char *function, int err, const char *fmt, ...) {}
static inline void nc_alsa_quiet(void) { snd_lib_error_set_handler(nc_alsa_quiet_handler); }
#endif
