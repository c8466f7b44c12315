#ifndef NOISECLOCK_CMPG123_SHIM_H
#define NOISECLOCK_CMPG123_SHIM_H
#include <sys/types.h>
#include <malloc.h>
#include <mpg123.h>

/// Gives freed heap pages back to the system (glibc keeps a decoding thread's freed buffers in its
/// arena otherwise): called once after a loop is decoded.
static inline void nc_release_free_memory(void) { malloc_trim(0); }
#endif
