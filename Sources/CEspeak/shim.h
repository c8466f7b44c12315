#ifndef NOISECLOCK_CESPEAK_SHIM_H
#define NOISECLOCK_CESPEAK_SHIM_H
#include <espeak-ng/speak_lib.h>
#endif
