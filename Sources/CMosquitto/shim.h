#ifndef NOISECLOCK_CMOSQUITTO_SHIM_H
#define NOISECLOCK_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#include <mqtt_protocol.h>

/* What the MQTT client, served on the node's event loop, needs besides libmosquitto and Swift's
   Glibc module offers not: a CLOCK_MONOTONIC timerfd (the keepalive) and TCP_CORK. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/* Corks (1) or uncorks (0) a TCP socket: while corked the kernel sends only full segments, and
   uncorking sends what it holds at once, so packets written one by one leave in one segment. */
static inline int nc_mqtt_cork(int fd, int on) {
    return setsockopt(fd, IPPROTO_TCP, TCP_CORK, &on, sizeof on);
}

/* A non-blocking, close-on-exec timer on CLOCK_MONOTONIC (libmosquitto's own clock); -1 on failure. */
static inline int nc_mqtt_timerfd_create(void) {
    return timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
}

/* Arms `fd` to expire once at `nanoseconds` of CLOCK_MONOTONIC (0 disarms it). Re-arming it from
   another thread does not wake a poll() on it. */
static inline int nc_mqtt_timerfd_arm(int fd, int64_t nanoseconds) {
    struct itimerspec spec = {0};
    spec.it_value.tv_sec = (time_t)(nanoseconds / 1000000000);
    spec.it_value.tv_nsec = (long)(nanoseconds % 1000000000);
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, 0);
}

/* Clears an expiry of `fd`. */
static inline void nc_mqtt_timerfd_drain(int fd) {
    uint64_t expirations = 0;
    ssize_t n = read(fd, &expirations, sizeof expirations);
    (void)n;
}

/* CLOCK_MONOTONIC in nanoseconds: the clock libmosquitto's keepalive counts in (whole seconds). */
static inline int64_t nc_mqtt_monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}
#endif
