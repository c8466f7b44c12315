#ifndef NOISECLOCK_CMPG123_SHIM_H
#define NOISECLOCK_CMPG123_SHIM_H
#include <sys/types.h>
#include <mpg123.h>
#endif
