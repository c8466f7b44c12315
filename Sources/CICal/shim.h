#ifndef NOISECLOCK_CICAL_SHIM_H
#define NOISECLOCK_CICAL_SHIM_H
#include <libical/ical.h>
#endif
