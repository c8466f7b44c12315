#ifndef NOISECLOCK_CMOSQUITTO_SHIM_H
#define NOISECLOCK_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#include <mqtt_protocol.h>
#endif
